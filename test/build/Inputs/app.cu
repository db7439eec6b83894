// A kernel that reads its ids, for the instrumenting build's tests.
__global__ void k(int *p) { p[blockIdx.x * blockDim.x + threadIdx.x] = 1; }
int main() { return 0; }
