__global__ void k(int *p) {
  *p = 1
}
