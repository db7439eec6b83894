// Separate compilation: the kernel calls a device function of rdc_b.cu.
extern __device__ int laneOf();
__global__ void k(int *p) { p[blockIdx.x] = laneOf(); }
int main() { return 0; }
