__device__ int laneOf() { return threadIdx.x % 32; }
