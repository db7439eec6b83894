// Decoupled look-back prefix scan (the idiom of CUB's single-pass scan),
// over a value wider than one word.
//
// The input is a sequence of affine maps x -> a*x + b (two 64-bit words);
// their prefix compositions, applied to x0, give every term of the
// recurrence x[i+1] = a[i]*x[i] + b[i]. Composition is associative but not
// commutative, so a tile combined out of order shows. Each block takes the
// next tile number from an atomic counter (so tiles start in order whatever
// order the blocks are scheduled in), scans its tile, publishes the tile's
// aggregate, looks back over its predecessors' aggregates until it meets an
// inclusive prefix, and publishes its own inclusive prefix. A value and its
// status flag cannot be written in one atomic store (16 + 4 bytes), so the
// publisher needs a fence between value and flag (release) and the reader a
// fence between seeing the flag and reading the value (acquire). Without
// them a look-back may read a value that has not arrived.
//
// Post-condition: every output term equals the CPU's exactly.
#include "../common/app.h"

namespace {

constexpr int kThreads = 256;
constexpr int kItems = 4; // per thread
constexpr unsigned kTile = kThreads * kItems;

// Tile status flags.
constexpr unsigned kNone = 0, kAggregate = 1, kPrefix = 2;

struct Affine {
  unsigned long long a, b; // x -> a*x + b (mod 2^64)
};
__host__ __device__ Affine identity() { return {1, 0}; }
// f, then g.
__host__ __device__ Affine then(Affine f, Affine g) {
  return {g.a * f.a, g.a * f.b + g.b};
}

// Thread 0: the composition of every tile before `tile`, or false if a
// predecessor's flag never came (reported as a hang).
__device__ bool look_back(unsigned tile, const unsigned *flags,
                          const Affine *aggregate, const Affine *inclusive,
                          Affine &exclusive) {
  Affine acc = identity(); // tiles p+1 .. tile-1, in order
  for (unsigned p = tile - 1;; --p) {
    APP_WAIT(wait);
    unsigned f;
    while ((f = app::load_volatile(&flags[p])) == kNone)
      if (!wait.more())
        return false;
    APP_FENCE(); // acquire: the value after its flag
    if (f == kPrefix) {
      exclusive = then(inclusive[p], acc);
      return true;
    }
    if (f != kAggregate || p == 0) { // tile 0 publishes a prefix only
      APP_BAD(f);
      return false;
    }
    acc = then(aggregate[p], acc);
  }
}

__global__ void scan(const Affine *in, unsigned n, unsigned long long x0,
                     unsigned *next_tile, unsigned *flags, Affine *aggregate,
                     Affine *inclusive, unsigned long long *out) {
  __shared__ unsigned tile;
  __shared__ Affine s[kThreads];
  __shared__ Affine exclusive;
  __shared__ bool failed;
  if (threadIdx.x == 0)
    tile = atomicAdd(next_tile, 1);
  __syncthreads();

  // This thread's items, composed.
  unsigned base = tile * kTile + threadIdx.x * kItems;
  Affine item[kItems], mine = identity();
  for (int k = 0; k < kItems; ++k) {
    item[k] = base + k < n ? in[base + k] : identity();
    mine = then(mine, item[k]);
  }
  // Inclusive scan of the threads' compositions (Hillis-Steele).
  s[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned off = 1; off < kThreads; off *= 2) {
    Affine v = s[threadIdx.x];
    if (threadIdx.x >= off)
      v = then(s[threadIdx.x - off], v);
    __syncthreads();
    s[threadIdx.x] = v;
    __syncthreads();
  }

  if (threadIdx.x == 0) {
    Affine total = s[kThreads - 1];
    failed = false;
    if (tile == 0) {
      exclusive = identity();
    } else {
      aggregate[tile] = total;
      APP_FENCE(); // release: the aggregate before its flag
      app::store_volatile(&flags[tile], kAggregate);
      failed = !look_back(tile, flags, aggregate, inclusive, exclusive);
    }
    if (!failed) {
      inclusive[tile] = then(exclusive, total);
      APP_FENCE(); // release: the prefix before its flag
      app::store_volatile(&flags[tile], kPrefix);
    }
  }
  __syncthreads();
  if (failed)
    return;

  Affine run = exclusive;
  if (threadIdx.x > 0)
    run = then(run, s[threadIdx.x - 1]);
  for (int k = 0; k < kItems; ++k) {
    run = then(run, item[k]);
    if (base + k < n)
      out[base + k] = run.a * x0 + run.b;
  }
}

struct Scan {
  static constexpr const char *name = "scan";
  static constexpr unsigned long long default_size = 1ull << 19;
  static constexpr const char *size_meaning = "terms of the recurrence";

  explicit Scan(const app::Options &o)
      : n_(static_cast<unsigned>(o.size)), tiles_((n_ + kTile - 1) / kTile),
        in_(n_), next_tile_(1), flags_(tiles_), aggregate_(tiles_),
        inclusive_(tiles_), out_(n_) {
    if (o.blocks)
      app::setup_error("--blocks: the grid follows --size (one block per " +
                       std::to_string(kTile) + " terms)");
    app::Random rng(o.seed);
    x0_ = rng.next();
    std::vector<Affine> in(n_);
    expected_.resize(n_);
    unsigned long long x = x0_;
    for (unsigned i = 0; i < n_; ++i) {
      in[i] = {rng.next() | 1, rng.next()}; // odd a: no term is forgotten
      x = in[i].a * x + in[i].b;
      expected_[i] = x;
    }
    in_.upload(in);
  }

  app::Verdict run(app::Timer &t) {
    next_tile_.fill_bytes(0);
    flags_.fill_bytes(0);
    aggregate_.fill_bytes(0xff); // what a read that comes too early finds
    inclusive_.fill_bytes(0xff);
    out_.fill_bytes(0);
    t.start();
    scan<<<tiles_, kThreads>>>(in_.get(), n_, x0_, next_tile_.get(),
                               flags_.get(), aggregate_.get(),
                               inclusive_.get(), out_.get());
    t.stop();
    std::vector<unsigned long long> got = out_.download();
    for (unsigned i = 0; i < n_; ++i)
      if (got[i] != expected_[i])
        return app::wrong(app::format(
            "term %u (tile %u) is %016llx, expected %016llx", i, i / kTile,
            got[i], expected_[i]));
    return app::pass(app::format("%u terms in %u tiles, every term exact", n_,
                                 tiles_));
  }

  unsigned n_, tiles_;
  unsigned long long x0_ = 0;
  std::vector<unsigned long long> expected_;
  app::DeviceArray<Affine> in_;
  app::DeviceArray<unsigned> next_tile_, flags_;
  app::DeviceArray<Affine> aggregate_, inclusive_;
  app::DeviceArray<unsigned long long> out_;
};

} // namespace

int main(int argc, char **argv) { return app::main<Scan>(argc, argv); }
