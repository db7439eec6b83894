// Counting semaphore used as a readers-writer lock (the idiom of the
// semaphores in HeteroSync).
//
// The semaphore holds kPermits permits: a reader takes one, a writer takes
// all of them at once (a CAS that moves the count from kPermits to 0), so up
// to kPermits readers share the data and a writer has it alone. Writers
// announce themselves in a second counter, and readers hold back while a
// writer waits, so that writers are not starved. The data is
// a record of kWords words, all equal to its version; a writer reads the
// version, and writes version + 1 into every word with ordinary stores; a
// reader reads every word with ordinary loads. The semaphore hands the
// record from writers to readers and writers, so it needs a fence after the
// permits are taken (acquire) and one before they are given back (release).
// Without them a reader may see a record half old, half new, and a writer
// may read an old version and write it again.
//
// Post-condition: the writers wrote versions 1, 2, ... W, each once; every
// reader saw a whole record of one version no newer than W; the record ends
// at version W and the semaphore with all its permits.
#include "../common/app.h"

namespace {

constexpr int kThreads = 32; // thread 0 of each block uses the semaphore
constexpr int kPermits = 8;
constexpr int kWords = 128; // four 128-byte lines
constexpr unsigned kTorn = 0x80000000u;

__host__ __device__ bool is_writer(unsigned op) {
  return (op * 0x9e3779b9u) >> 29 == 0; // one op in eight
}

struct Semaphore {
  int count;           // permits free
  int writers_waiting; // readers hold back while this is not 0
};

__device__ bool take(Semaphore *s, int permits) {
  bool writer = permits == kPermits;
  if (writer)
    atomicAdd(&s->writers_waiting, 1);
  APP_WAIT(wait);
  for (;;) {
    if (writer || app::load_volatile(&s->writers_waiting) == 0) {
      int c = app::load_volatile(&s->count);
      if (c >= permits && atomicCAS(&s->count, c, c - permits) == c)
        break;
    }
    if (!wait.more())
      return false;
  }
  if (writer)
    atomicSub(&s->writers_waiting, 1);
  APP_FENCE(); // acquire: the record as the last writer left it
  return true;
}

__device__ void give(Semaphore *s, int permits) {
  APP_FENCE(); // release: our accesses before the permits are back
  atomicAdd(&s->count, permits);
}

__global__ void use(unsigned ops, unsigned rounds, Semaphore *sem,
                    unsigned *record, unsigned *result) {
  if (threadIdx.x != 0)
    return;
  for (unsigned r = 0; r < rounds; ++r) {
    unsigned op = blockIdx.x * rounds + r;
    if (op >= ops)
      return;
    if (is_writer(op)) {
      if (!take(sem, kPermits))
        return; // reported as a hang by the host
      unsigned version = record[0] + 1;
      for (int w = 0; w < kWords; ++w)
        record[w] = version;
      result[op] = version;
      give(sem, kPermits);
    } else {
      if (!take(sem, 1))
        return;
      unsigned version = record[0];
      bool whole = true;
      for (int w = 1; w < kWords; ++w)
        whole &= record[w] == version;
      result[op] = whole ? version : version | kTorn;
      give(sem, 1);
    }
  }
}

struct RwSemaphore {
  static constexpr const char *name = "semaphore";
  static constexpr unsigned long long default_size = 4096;
  static constexpr const char *size_meaning =
      "semaphore operations (one in eight a write)";

  explicit RwSemaphore(const app::Options &o)
      : n_(static_cast<unsigned>(o.size)),
        blocks_(std::min(n_, app::default_blocks(o, 8))),
        rounds_((n_ + blocks_ - 1) / blocks_), sem_(1), record_(kWords),
        result_(n_) {
    for (unsigned op = 0; op < n_; ++op)
      writes_ += is_writer(op);
  }

  app::Verdict run(app::Timer &t) {
    Semaphore start{kPermits, 0};
    APP_CUDA(cudaMemcpy(sem_.get(), &start, sizeof start,
                        cudaMemcpyHostToDevice));
    record_.fill_bytes(0);
    result_.fill_bytes(0xff);
    t.start();
    use<<<blocks_, kThreads>>>(n_, rounds_, sem_.get(), record_.get(),
                               result_.get());
    t.stop();
    Semaphore end = sem_.download()[0];
    std::vector<unsigned> record = record_.download();
    std::vector<unsigned> result = result_.download();
    std::vector<char> written(writes_ + 1, 0);
    for (unsigned op = 0; op < n_; ++op) {
      unsigned v = result[op];
      if (is_writer(op)) {
        if (v == 0 || v > writes_ || written[v])
          return app::wrong(app::format(
              "write %u wrote version %u (%u writes in all)%s", op, v,
              writes_, v <= writes_ && v && written[v] ? ", a second time" : ""));
        written[v] = 1;
      } else if (v & kTorn || v > writes_) {
        return app::wrong(app::format(
            "read %u saw %s (of %u versions)", op,
            v == ~0u ? "nothing" : v & kTorn ? "a torn record" : "a version "
                                                                 "never written",
            writes_));
      }
    }
    for (int w = 0; w < kWords; ++w)
      if (record[w] != writes_)
        return app::wrong(app::format("word %d of the record ends at version "
                                      "%u, not %u",
                                      w, record[w], writes_));
    if (end.count != kPermits || end.writers_waiting != 0)
      return app::wrong(app::format("the semaphore ends with %d permits and "
                                    "%d writers waiting, not %d and 0",
                                    end.count, end.writers_waiting, kPermits));
    return app::pass(app::format("%u reads and %u writes by %u blocks, every "
                                 "record whole",
                                 n_ - writes_, writes_, blocks_));
  }

  unsigned n_, blocks_, rounds_, writes_ = 0;
  app::DeviceArray<Semaphore> sem_;
  app::DeviceArray<unsigned> record_, result_;
};

} // namespace

int main(int argc, char **argv) { return app::main<RwSemaphore>(argc, argv); }
