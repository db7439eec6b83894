// launches.cu - launch cost and kernel time (bench/intercept).
//
// Times N empty launches (host wall clock, the best of three rounds: the
// cost an interception layer adds per launch), then R launches of a grid-stride kernel that reads its
// ids (CUDA events around each; the instrumented build's prologue runs in
// every thread). Prints both; used to compare the plain and the
// instrumented build, without and with the injected library, and CUPTI.
#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void empty() {}

__global__ void work(float *X, int N, int Reps) {
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < N;
       I += gridDim.x * blockDim.x) {
    float V = X[I];
    for (int R = 0; R < Reps; ++R)
      V = V * 1.0001f + 0.5f;
    X[I] = V;
  }
}

int main(int Argc, char **Argv) {
  int N = Argc > 1 ? std::atoi(Argv[1]) : 20000;
  int R = Argc > 2 ? std::atoi(Argv[2]) : 200;
  empty<<<1, 32>>>();
  cudaDeviceSynchronize();
  double Us = 1e30; // the best of three rounds
  for (int Round = 0; Round < 3; ++Round) {
    auto T0 = std::chrono::steady_clock::now();
    for (int I = 0; I < N; ++I)
      empty<<<1, 32>>>();
    cudaDeviceSynchronize();
    double U = std::chrono::duration<double, std::micro>(
                   std::chrono::steady_clock::now() - T0).count() / N;
    Us = U < Us ? U : Us;
  }
  const int Size = 1 << 24;
  float *X;
  cudaMalloc(&X, Size * sizeof(float));
  cudaMemset(X, 0, Size * sizeof(float));
  cudaEvent_t A, B;
  cudaEventCreate(&A);
  cudaEventCreate(&B);
  work<<<1056, 256>>>(X, Size, 8);
  float Total = 0;
  for (int I = 0; I < R; ++I) {
    cudaEventRecord(A);
    work<<<1056, 256>>>(X, Size, 8);
    cudaEventRecord(B);
    cudaEventSynchronize(B);
    float Ms;
    cudaEventElapsedTime(&Ms, A, B);
    Total += Ms;
  }
  cudaError_t E = cudaGetLastError();
  std::printf("launches: %.3f us/launch (%d empty), work kernel %.4f ms/launch "
              "(%d), %s\n",
              Us, N, Total / R, R, cudaGetErrorString(E));
  return E == cudaSuccess ? 0 : 2;
}
