// Octree partitioning with work-stealing deques (the idiom of Cederman and
// Tsigas's octree builder; the deque is Arora, Blumofe and Plaxton's).
//
// A task is a cell of the octree with a range of the particle array. The
// block that runs a task sorts the cell's particles into its eight octants,
// writes eight child cells, and pushes the children that are still too big
// (more than kLeaf particles) onto its own deque. Each block takes work from
// the bottom of its own deque and, when that is empty, steals from the top
// of another block's. The particles and cells a task refers to were written
// by the block that pushed it, so a push needs a fence between those writes
// and the new bottom (release) and a steal a fence between reading the
// bottom and reading the task (acquire). The deque itself needs three more
// full fences: the owner's pop must publish its new bottom before it reads
// the top (a store then a load); when it empties the deque it must reset
// the bottom before the top and tag (a first version without that fence
// lost a task in 3 of 100 runs on an H100); and a thief must read the top
// before the bottom. Without them a thief may run a task on particles that
// have not arrived, or two blocks may run one task and lose another.
//
// Post-condition: the tree is exactly the octree of the input (every cell
// with more than kLeaf particles split, each child the right octant of its
// parent, every particle once and inside its leaf), with as many cells as
// the CPU's build.
#include "../common/app.h"

namespace {

constexpr int kThreads = 256;
constexpr unsigned kLeaf = 32;        // cells with more particles are split
constexpr unsigned kBits = 21;        // coordinates lie in [0, 2^kBits)
constexpr unsigned kDequeSize = 256;  // per block, circular
constexpr int kNoTask = -1;

struct Particle {
  unsigned x, y, z, id;
};
struct Cell {
  int begin, end;  // the particles, a range of the particle array
  int first_child; // eight consecutive cells, or -1 for a leaf
  unsigned level;  // side 2^(kBits - level)
  unsigned x, y, z, pad;
};

__host__ __device__ unsigned octant(const Particle &p, unsigned level) {
  unsigned s = kBits - 1 - level;
  return ((p.x >> s) & 1) | ((p.y >> s) & 1) << 1 | ((p.z >> s) & 1) << 2;
}
__host__ __device__ Cell child_cell(const Cell &c, unsigned k, int begin,
                                    int end) {
  unsigned half = 1u << (kBits - 1 - c.level);
  return {begin,
          end,
          -1,
          c.level + 1,
          c.x + (k & 1 ? half : 0),
          c.y + (k & 2 ? half : 0),
          c.z + (k & 4 ? half : 0),
          0};
}

// One deque per block: slots, the bottom (written by the owner only) and
// the age, the top in the low word and a tag in the high word that changes
// whenever the owner empties the deque, so that a late thief's CAS fails.
struct Deques {
  int *slots;
  unsigned *bottom;
  unsigned long long *age;
};
__device__ unsigned top_of(unsigned long long age) {
  return static_cast<unsigned>(age);
}

__device__ bool push(Deques q, unsigned d, int task) {
  unsigned b = app::load_volatile(&q.bottom[d]);
  unsigned t = top_of(app::load_volatile(&q.age[d]));
  if (b - t >= kDequeSize) {
    APP_BAD(b - t); // full
    return false;
  }
  q.slots[d * kDequeSize + b % kDequeSize] = task;
  APP_FENCE(); // release: the task, and the cells and particles it names
  app::store_volatile(&q.bottom[d], b + 1);
  return true;
}

__device__ int pop_bottom(Deques q, unsigned d) {
  unsigned b = app::load_volatile(&q.bottom[d]);
  if (b == 0)
    return kNoTask;
  --b;
  app::store_volatile(&q.bottom[d], b);
  APP_FENCE(); // the new bottom before reading the top
  int task = q.slots[d * kDequeSize + b % kDequeSize];
  unsigned long long old = app::load_volatile(&q.age[d]);
  if (b > top_of(old))
    return task;
  // At most one task was left: race the thieves for it, then reset.
  app::store_volatile(&q.bottom[d], 0u);
  // The reset bottom before the new age: a thief that sees the new age
  // with the old bottom would take a slot of the old epoch, and lose the
  // next task pushed there.
  APP_FENCE();
  unsigned long long fresh = ((old >> 32) + 1) << 32;
  if (b == top_of(old) && atomicCAS(&q.age[d], old, fresh) == old)
    return task;
  atomicExch(&q.age[d], fresh);
  return kNoTask;
}

__device__ int steal(Deques q, unsigned v) {
  unsigned long long old = app::load_volatile(&q.age[v]);
  APP_FENCE(); // the top before the bottom
  unsigned b = app::load_volatile(&q.bottom[v]);
  if (b <= top_of(old))
    return kNoTask;
  APP_FENCE(); // acquire: the task, and what it names, after the bottom
  int task = q.slots[v * kDequeSize + top_of(old) % kDequeSize];
  if (atomicCAS(&q.age[v], old, old + 1) == old)
    return task;
  return kNoTask;
}

// Thread 0: a task for block `me`, or kNoTask when the tree is built (or
// the run failed).
__device__ int find_work(Deques q, unsigned me, const unsigned *started,
                         const int *pending, unsigned &rng) {
  APP_WAIT(wait);
  for (;;) {
    int task = pop_bottom(q, me);
    if (task != kNoTask)
      return task;
    unsigned blocks = min(app::load_volatile(started), gridDim.x);
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    unsigned victim = rng % blocks;
    if (victim != me && (task = steal(q, victim)) != kNoTask)
      return task;
    if (app::load_volatile(pending) == 0 || !wait.more())
      return kNoTask;
  }
}

__global__ void build(Particle *pts, Particle *tmp, unsigned n, Cell *cells,
                      unsigned *cell_count, unsigned cell_capacity, Deques q,
                      unsigned *started, int *pending) {
  __shared__ unsigned me;
  __shared__ int task;
  __shared__ Cell cell;
  __shared__ unsigned count[8], cursor[8];
  unsigned rng = 0;
  if (threadIdx.x == 0) {
    me = atomicAdd(started, 1);
    rng = 2463534242u ^ (me * 0x9e3779b9u);
    if (me == 0)
      push(q, 0, 0); // the root cell, written by the host
  }
  for (;;) {
    if (threadIdx.x == 0) {
      task = find_work(q, me, started, pending, rng);
      if (task != kNoTask) {
        if (task < 0 || static_cast<unsigned>(task) >=
                            min(app::load_volatile(cell_count), cell_capacity)) {
          APP_BAD(task);
          task = kNoTask;
        } else {
          cell = cells[task];
          cell.first_child = -1; // set below if the cell is split
          if (cell.begin < 0 || cell.begin > cell.end ||
              static_cast<unsigned>(cell.end) > n || cell.level > kBits) {
            APP_BAD(task);
            task = kNoTask;
          }
        }
      }
      if (task != kNoTask)
        for (int k = 0; k < 8; ++k)
          count[k] = 0;
    }
    __syncthreads();
    if (task == kNoTask)
      return;
    unsigned size = cell.end - cell.begin;
    if (size > kLeaf && cell.level < kBits) {
      for (int i = cell.begin + threadIdx.x; i < cell.end; i += kThreads)
        atomicAdd(&count[octant(pts[i], cell.level)], 1u);
      __syncthreads();
      if (threadIdx.x == 0) {
        unsigned first = atomicAdd(cell_count, 8);
        if (first + 8 > cell_capacity) {
          APP_BAD(first); // the run is wrong already: leave it a leaf
        } else {
          int begin = cell.begin;
          for (int k = 0; k < 8; ++k) {
            cursor[k] = begin - cell.begin;
            cells[first + k] = child_cell(cell, k, begin, begin + count[k]);
            begin += count[k];
          }
          cells[task].first_child = first;
          cell.first_child = first;
        }
      }
      __syncthreads();
    }
    if (cell.first_child >= 0) {
      for (int i = cell.begin + threadIdx.x; i < cell.end; i += kThreads) {
        Particle p = pts[i];
        unsigned at = cell.begin + atomicAdd(&cursor[octant(p, cell.level)], 1u);
        if (at < static_cast<unsigned>(cell.end))
          tmp[at] = p;
        else
          APP_BAD(at); // the particles changed under us
      }
      __syncthreads();
      for (int i = cell.begin + threadIdx.x; i < cell.end; i += kThreads)
        pts[i] = tmp[i];
      __syncthreads(); // every thread's particles before thread 0 pushes
    }
    if (threadIdx.x == 0) {
      int pushed = 0;
      if (cell.first_child >= 0)
        for (int k = 0; k < 8; ++k) // small children are finished leaves
          if (count[k] > kLeaf && cell.level + 1 < kBits &&
              push(q, me, cell.first_child + k))
            ++pushed;
      atomicAdd(pending, pushed - 1); // children in, this task out
    }
    __syncthreads(); // cell, count and task are rewritten next round
  }
}

// The CPU's build of the same octree: how many cells it has.
unsigned count_cells(std::vector<Particle> &pts, int begin, int end,
                     unsigned level) {
  if (static_cast<unsigned>(end - begin) <= kLeaf || level == kBits)
    return 1;
  std::vector<Particle> part[8];
  for (int i = begin; i < end; ++i)
    part[octant(pts[i], level)].push_back(pts[i]);
  unsigned cells = 1;
  int at = begin;
  for (auto &p : part) {
    std::copy(p.begin(), p.end(), pts.begin() + at);
    cells += count_cells(pts, at, at + static_cast<int>(p.size()), level + 1);
    at += static_cast<int>(p.size());
  }
  return cells;
}

struct Octree {
  static constexpr const char *name = "octree";
  static constexpr unsigned long long default_size = 1ull << 17;
  static constexpr const char *size_meaning = "particles";

  explicit Octree(const app::Options &o)
      : n_(static_cast<unsigned>(o.size)), blocks_(app::default_blocks(o, 4)),
        input_(n_), pts_(n_), tmp_(n_), slots_(size_t(blocks_) * kDequeSize),
        bottom_(blocks_), age_(blocks_), started_(1), pending_(1),
        cell_count_(1) {
    app::Random rng(o.seed);
    host_input_.resize(n_);
    for (unsigned i = 0; i < n_; ++i)
      host_input_[i] = {static_cast<unsigned>(rng.below(1u << kBits)),
                        static_cast<unsigned>(rng.below(1u << kBits)),
                        static_cast<unsigned>(rng.below(1u << kBits)), i};
    input_.upload(host_input_);
    std::vector<Particle> copy = host_input_;
    expected_cells_ = count_cells(copy, 0, static_cast<int>(n_), 0);
    cell_capacity_ = 2 * expected_cells_ + 64;
    cells_ = app::DeviceArray<Cell>(cell_capacity_);
  }

  app::Verdict run(app::Timer &t) {
    APP_CUDA(cudaMemcpy(pts_.get(), input_.get(), n_ * sizeof(Particle),
                        cudaMemcpyDeviceToDevice));
    cells_.fill_bytes(0xff); // what a read that comes too early finds
    tmp_.fill_bytes(0xff);
    Cell root{0, static_cast<int>(n_), -1, 0, 0, 0, 0, 0};
    APP_CUDA(cudaMemcpy(cells_.get(), &root, sizeof root,
                        cudaMemcpyHostToDevice));
    bottom_.fill_bytes(0);
    age_.fill_bytes(0);
    started_.fill_bytes(0);
    unsigned one = 1;
    APP_CUDA(cudaMemcpy(pending_.get(), &one, sizeof one,
                        cudaMemcpyHostToDevice));
    APP_CUDA(cudaMemcpy(cell_count_.get(), &one, sizeof one,
                        cudaMemcpyHostToDevice));
    t.start();
    build<<<blocks_, kThreads>>>(
        pts_.get(), tmp_.get(), n_, cells_.get(), cell_count_.get(),
        cell_capacity_, Deques{slots_.get(), bottom_.get(), age_.get()},
        started_.get(), pending_.get());
    t.stop();
    unsigned cells = cell_count_.download()[0];
    if (cells > cell_capacity_)
      return app::wrong(app::format("%u cells made, the CPU's tree has %u",
                                    cells, expected_cells_));
    return check(pts_.download(), cells_.download(cells));
  }

  app::Verdict check(const std::vector<Particle> &pts,
                     const std::vector<Cell> &cells) const {
    std::vector<char> seen(n_, 0);
    for (unsigned i = 0; i < n_; ++i) {
      const Particle &p = pts[i];
      if (p.id >= n_ || seen[p.id] || host_input_[p.id].x != p.x ||
          host_input_[p.id].y != p.y || host_input_[p.id].z != p.z)
        return app::wrong(app::format(
            "slot %u holds particle %u (%u, %u, %u): lost, duplicated or "
            "altered",
            i, p.id, p.x, p.y, p.z));
      seen[p.id] = 1;
    }
    std::vector<char> reached(cells.size(), 0);
    std::vector<unsigned> todo{0};
    unsigned visited = 0;
    while (!todo.empty()) {
      unsigned c = todo.back();
      todo.pop_back();
      if (reached[c]++)
        return app::wrong(app::format("cell %u is reached twice", c));
      ++visited;
      const Cell &x = cells[c];
      unsigned size = x.end - x.begin;
      if (x.first_child < 0) {
        if (size > kLeaf && x.level < kBits)
          return app::wrong(app::format(
              "leaf %u holds %u particles (at most %u)", c, size, kLeaf));
        unsigned s = kBits - x.level;
        for (int i = x.begin; i < x.end; ++i)
          if (pts[i].x >> s != x.x >> s || pts[i].y >> s != x.y >> s ||
              pts[i].z >> s != x.z >> s)
            return app::wrong(app::format(
                "particle %u lies outside its leaf %u", pts[i].id, c));
        continue;
      }
      if (size <= kLeaf ||
          static_cast<size_t>(x.first_child) + 8 > cells.size())
        return app::wrong(app::format(
            "cell %u (%u particles) has children at %d of %zu cells", c,
            size, x.first_child, cells.size()));
      int at = x.begin;
      for (unsigned k = 0; k < 8; ++k) {
        const Cell &y = cells[x.first_child + k];
        Cell want = child_cell(x, k, at, y.end);
        if (y.begin != at || y.end < y.begin || y.level != want.level ||
            y.x != want.x || y.y != want.y || y.z != want.z)
          return app::wrong(app::format(
              "cell %u is not octant %u of its parent %u", x.first_child + k,
              k, c));
        at = y.end;
        todo.push_back(x.first_child + k);
      }
      if (at != x.end)
        return app::wrong(app::format(
            "the children of cell %u cover [%d, %d), not [%d, %d)", c,
            x.begin, at, x.begin, x.end));
    }
    if (visited != cells.size() || visited != expected_cells_)
      return app::wrong(app::format("%zu cells made, %u reachable, the CPU's "
                                    "tree has %u",
                                    cells.size(), visited, expected_cells_));
    return app::pass(app::format("%u particles in %u cells, the CPU's tree "
                                 "(%u blocks stealing)",
                                 n_, visited, blocks_));
  }

  unsigned n_, blocks_, expected_cells_ = 0, cell_capacity_ = 0;
  std::vector<Particle> host_input_;
  app::DeviceArray<Particle> input_, pts_, tmp_;
  app::DeviceArray<Cell> cells_;
  app::DeviceArray<int> slots_;
  app::DeviceArray<unsigned> bottom_;
  app::DeviceArray<unsigned long long> age_;
  app::DeviceArray<unsigned> started_;
  app::DeviceArray<int> pending_;
  app::DeviceArray<unsigned> cell_count_;
};

} // namespace

int main(int argc, char **argv) { return app::main<Octree>(argc, argv); }
