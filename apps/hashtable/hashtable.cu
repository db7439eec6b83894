// Hash table with a lock per bucket (the idiom of CUDA by Example's hash
// table).
//
// Every thread inserts one key: it fills its entry from a preallocated pool,
// takes the lock of the key's bucket (atomicCAS), links the entry in front
// of the bucket's chain with ordinary loads and stores, and gives the lock
// back (atomicExch). The chain head is read and written under the lock, so
// the lock must order those accesses: a fence after taking it (acquire) and
// one before releasing it (release, which also publishes the entry's key
// and value). Without them a thread may read a stale head and unlink the
// entries that other blocks inserted just before.
//
// Post-condition: walking every chain finds each key exactly once, in its
// own bucket, with its value, and nothing else.
#include "../common/app.h"

namespace {

constexpr int kThreads = 256;
constexpr int kEmpty = -1;

struct Entry {
  unsigned key;
  unsigned value;
  int next;
};

// A bijection on 32-bit words (MurmurHash3's finaliser): distinct inputs
// give distinct keys.
__host__ __device__ unsigned mix32(unsigned h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}
__host__ __device__ unsigned value_of(unsigned key) {
  return key * 2654435761u + 12345u;
}

__device__ bool lock(int *mutex) {
  APP_WAIT(wait);
  while (atomicCAS(mutex, 0, 1) != 0)
    if (!wait.more())
      return false;
  APP_FENCE(); // acquire: see the chain as the last holder left it
  return true;
}

__device__ void unlock(int *mutex) {
  APP_FENCE(); // release: the entry and the new head before the lock is free
  atomicExch(mutex, 0);
}

__global__ void insert(const unsigned *keys, unsigned n, unsigned buckets,
                       Entry *pool, int *heads, int *locks) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    unsigned key = keys[i];
    unsigned b = key % buckets;
    pool[i].key = key;
    pool[i].value = value_of(key);
    if (!lock(&locks[b]))
      return; // reported as a hang by the host
    pool[i].next = heads[b];
    heads[b] = static_cast<int>(i);
    unlock(&locks[b]);
  }
}

struct HashTable {
  static constexpr const char *name = "hashtable";
  static constexpr unsigned long long default_size = 1ull << 18;
  static constexpr const char *size_meaning = "keys inserted";

  explicit HashTable(const app::Options &o)
      : n_(static_cast<unsigned>(o.size)), buckets_(std::max(1u, n_ / 8)),
        blocks_(o.blocks ? o.blocks : (n_ + kThreads - 1) / kThreads),
        keys_(n_), pool_(n_), heads_(buckets_), locks_(buckets_) {
    unsigned offset = static_cast<unsigned>(o.seed * 0x9e3779b9ull);
    keys_host_.resize(n_);
    for (unsigned i = 0; i < n_; ++i)
      keys_host_[i] = mix32(i + offset);
    keys_.upload(keys_host_);
  }

  app::Verdict run(app::Timer &t) {
    pool_.fill_bytes(0xff);  // a stale read finds nothing plausible
    heads_.fill_bytes(0xff); // kEmpty
    locks_.fill_bytes(0);
    t.start();
    insert<<<blocks_, kThreads>>>(keys_.get(), n_, buckets_, pool_.get(),
                                  heads_.get(), locks_.get());
    t.stop();
    return check(heads_.download(), pool_.download());
  }

  app::Verdict check(const std::vector<int> &heads,
                     const std::vector<Entry> &pool) const {
    std::vector<char> seen(n_, 0);
    unsigned found = 0;
    for (unsigned b = 0; b < buckets_; ++b) {
      for (int e = heads[b]; e != kEmpty; e = pool[e].next) {
        if (e < 0 || static_cast<unsigned>(e) >= n_)
          return app::wrong(app::format("bucket %u links to entry %d", b, e));
        if (seen[e])
          return app::wrong(app::format(
              "entry %d is reached twice (bucket %u): the chain is broken", e,
              b));
        seen[e] = 1;
        const Entry &x = pool[e];
        if (x.key != keys_host_[e] || x.value != value_of(x.key) ||
            x.key % buckets_ != b)
          return app::wrong(app::format(
              "bucket %u holds entry %d = (key %08x, value %08x)", b, e,
              x.key, x.value));
        ++found;
      }
    }
    if (found != n_) {
      unsigned lost = 0;
      while (seen[lost])
        ++lost;
      return app::wrong(app::format("%u of %u keys are in the table; key "
                                    "%08x (entry %u) is lost",
                                    found, n_, keys_host_[lost], lost));
    }
    return app::pass(app::format("%u keys in %u buckets, every key once",
                                 n_, buckets_));
  }

  unsigned n_, buckets_, blocks_;
  std::vector<unsigned> keys_host_;
  app::DeviceArray<unsigned> keys_;
  app::DeviceArray<Entry> pool_;
  app::DeviceArray<int> heads_, locks_;
};

} // namespace

int main(int argc, char **argv) { return app::main<HashTable>(argc, argv); }
