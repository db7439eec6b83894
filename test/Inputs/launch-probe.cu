// lit.cfg.py's probe of the "libclang" feature: the host code's one launch
// is read where libclang reads this machine's CUDA headers.
__global__ void probe(int *out) { out[threadIdx.x] = 1; }

int main() {
  int *out = nullptr;
  probe<<<1, 32>>>(out);
  return 0;
}
