// Named barriers with a thread count, as the PTX ISA's producer/consumer
// example writes them: warp 0 produces a value into shared memory and
// arrives at barrier 0 (bar.arrive does not wait), warp 1 waits on it
// (bar.sync) before it reads; barrier 1 hands the buffer back. Both count
// the block's 64 threads.
// REQUIRES: nvcc
// RUN: %incant race %s --block-dim 64 --kernel producer_consumer -v > %t.ok; test $? -eq 0
// RUN: FileCheck %s --check-prefix=OK < %t.ok
// RUN: %incant race %s --block-dim 64 --kernel read_too_early > %t.early; test $? -eq 1
// RUN: FileCheck %s --check-prefix=EARLY < %t.early
// RUN: %incant race %s --block-dim 64 --kernel overwrite_too_early > %t.over; test $? -eq 1
// RUN: FileCheck %s --check-prefix=OVER < %t.over
// RUN: %incant race %s --block-dim 64 --kernel odd_count > %t.odd; test $? -eq 4
// RUN: FileCheck %s --check-prefix=ODD < %t.odd
// RUN: %incant race %s --block-dim 64 --kernel loaded_id > %t.id; test $? -eq 4
// RUN: FileCheck %s --check-prefix=ID < %t.id
// RUN: %incant race %s --block-dim 128 --kernel producer_consumer > %t.part; test $? -eq 1
// RUN: FileCheck %s --check-prefix=PART < %t.part
// RUN: %incant race %s --block-dim 64 --kernel reduce_count > %t.red; test $? -eq 0
// RUN: FileCheck %s --check-prefix=RED < %t.red

// OK-LABEL: kernel _Z17producer_consumerPKiPi
// OK:       barrier bar.arrive 0, 64 at named-barrier.cu:{{[0-9]+}}: safe: a named barrier: orders the accesses of the threads that meet in one of its generations
// OK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void producer_consumer(const int *in, int *out) {
  __shared__ int buf[32];
  unsigned t = threadIdx.x;
  if (t < 32) { // producer
    buf[t] = in[blockIdx.x * 32 + t];
    asm volatile("bar.arrive 0, 64;" ::: "memory");
    asm volatile("bar.sync 1, 64;" ::: "memory"); // the buffer is free again
    buf[t] = 2 * in[blockIdx.x * 32 + t];
  } else { // consumer
    asm volatile("bar.sync 0, 64;" ::: "memory");
    int v = buf[63 - t];
    asm volatile("bar.arrive 1, 64;" ::: "memory");
    out[blockIdx.x * 32 + t - 32] = v;
  }
}

// The consumer reads before it waits on barrier 0.
// EARLY-LABEL: kernel _Z14read_too_earlyPKiPi
// EARLY:       race: write-read on shared memory, buf, between threads of one block
// EARLY:         write at named-barrier.cu:[[#@LINE+8]]
// EARLY:         read  at named-barrier.cu:[[#@LINE+10]]
// EARLY:         witness: thread ({{[0-9]+}},0,0) of block ([[B:[0-9]+]],0,0) (warp 0,
// EARLY-NEXT:         and thread ({{[0-9]+}},0,0) of block ([[B]],0,0) (warp 1,
__global__ void read_too_early(const int *in, int *out) {
  __shared__ int buf[32];
  unsigned t = threadIdx.x;
  if (t < 32) {
    buf[t] = in[blockIdx.x * 32 + t];
    asm volatile("bar.arrive 0, 64;" ::: "memory");
  } else {
    int v = buf[63 - t];
    asm volatile("bar.sync 0, 64;" ::: "memory");
    out[blockIdx.x * 32 + t - 32] = v;
  }
}

// The producer writes again without waiting for the consumer's barrier 1
// (it arrives there instead of waiting): a write after the read.
// OVER-LABEL: kernel _Z19overwrite_too_earlyPKiPi
// OVER:       race: write-read on shared memory, buf, between threads of one block
__global__ void overwrite_too_early(const int *in, int *out) {
  __shared__ int buf[32];
  unsigned t = threadIdx.x;
  if (t < 32) {
    buf[t] = in[blockIdx.x * 32 + t];
    asm volatile("bar.arrive 0, 64;" ::: "memory");
    asm volatile("bar.arrive 1, 64;" ::: "memory");
    buf[t] = 2 * in[blockIdx.x * 32 + t];
  } else {
    asm volatile("bar.sync 0, 64;" ::: "memory");
    int v = buf[63 - t];
    asm volatile("bar.sync 1, 64;" ::: "memory");
    out[blockIdx.x * 32 + t - 32] = v;
  }
}

// A thread count that is not a constant (ptxas refuses a constant that is
// not a multiple of the warp size; named-barrier-count.ptx has one): the
// pairs it might order are unknown, naming it.
// ODD-LABEL: kernel _Z9odd_countPKiPij
// ODD:       unknown: {{.*}}a named barrier may order the pair, which the analysis does not follow: bar.arrive 0, {{.*}} at named-barrier.cu:[[#@LINE+6]]: a thread count that is not a constant
__global__ void odd_count(const int *in, int *out, unsigned n) {
  __shared__ int buf[32];
  unsigned t = threadIdx.x;
  if (t < 32) {
    buf[t] = in[blockIdx.x * 32 + t];
    asm volatile("bar.arrive 0, %0;" ::"r"(n) : "memory");
  } else {
    asm volatile("bar.sync 0, %0;" ::"r"(n) : "memory");
    out[blockIdx.x * 32 + t - 32] = buf[63 - t];
  }
}

// A barrier id read from memory: which barrier it is is not known.
// ID-LABEL: kernel _Z9loaded_idPKiPiPKj
// ID:       unknown: {{.*}}a named barrier may order the pair, which the analysis does not follow: bar.arrive {{.*}}: a barrier id that is not a constant or a function of the thread and iteration
__global__ void loaded_id(const int *in, int *out, const unsigned *ids) {
  __shared__ int buf[32];
  unsigned t = threadIdx.x;
  unsigned id = ids[0];
  if (t < 32) {
    buf[t] = in[blockIdx.x * 32 + t];
    asm volatile("bar.arrive %0, 64;" ::"r"(id) : "memory");
  } else {
    asm volatile("bar.sync %0, 64;" ::"r"(id) : "memory");
    out[blockIdx.x * 32 + t - 32] = buf[63 - t];
  }
}

// With 128 threads per block, a count of 64 leaves open which threads
// meet in a generation (the -part run of producer_consumer).
// PART-LABEL: kernel _Z17producer_consumerPKiPi
// PART:       unknown: {{.*}}its count 64 may not be the block's number of threads

// bar.red with a thread count waits like bar.sync: the counted reduction
// orders the write before every thread's read.
// RED-LABEL: kernel _Z12reduce_countPKiPi
// RED:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void reduce_count(const int *in, int *out) {
  __shared__ int buf[64];
  unsigned t = threadIdx.x;
  buf[t] = in[blockIdx.x * 64 + t];
  int n;
  asm volatile("{ .reg .pred p; setp.ne.s32 p, %1, 0;\n"
               "  bar.red.popc.u32 %0, 2, 64, p; }"
               : "=r"(n) : "r"(buf[t]) : "memory");
  out[blockIdx.x * 64 + t] = buf[63 - t] + n;
}
