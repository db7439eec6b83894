// Barnes-Hut tree building with locked child slots (the idiom of the
// tree-building kernel of Burtscher and Pingali's Barnes-Hut).
//
// One thread per body walks down from the root cell to the child slot its
// body falls in. An empty slot is claimed with one atomicCAS. A slot that
// holds another body is locked (atomicCAS to a lock value); the locking
// thread then makes the new cells that separate the two bodies, fills them,
// and stores the new cell into the slot, which also unlocks it. Other
// threads that read the slot next walk into the new cell and read its
// bounds and children, so the publisher needs a fence between filling the
// cells and storing the slot (release) and a walker one between reading a
// cell index and reading that cell (acquire). Cell memory is reused from
// run to run without clearing, as a real code's would be: without the
// fences a walker may read the bounds a cell had in an earlier run, and
// file its body in the wrong octant.
//
// Post-condition: the tree is exactly the octree of the bodies with one
// body per slot (every body once, each in the octant its coordinates give,
// every cell the right octant of its parent), with as many cells as the
// CPU's build.
#include "../common/app.h"

namespace {

constexpr int kThreads = 256;
constexpr unsigned kBits = 21;       // coordinates lie in [0, 2^kBits)
constexpr int kNull = -1, kLock = -2; // slot values; bodies are 0..n-1,
                                      // cells n + index

struct Body {
  unsigned x, y, z;
};
struct Cell {
  int child[8];
  unsigned x, y, z, level; // side 2^(kBits - level)
};

__host__ __device__ unsigned octant(const Body &b, unsigned level) {
  unsigned s = kBits - 1 - level;
  return ((b.x >> s) & 1) | ((b.y >> s) & 1) << 1 | ((b.z >> s) & 1) << 2;
}
__host__ __device__ void child_corner(const Cell &c, unsigned k, unsigned &x,
                                      unsigned &y, unsigned &z) {
  unsigned half = 1u << (kBits - 1 - c.level);
  x = c.x + (k & 1 ? half : 0);
  y = c.y + (k & 2 ? half : 0);
  z = c.z + (k & 4 ? half : 0);
}

// The thread that locked `slot` (which held body j) links in the chain of
// new cells that first separates bodies i and j. False if the cell pool ran
// out (the run is wrong already).
__device__ bool split(int *slot, const Cell &parent, unsigned k, int i,
                      int j, const Body *bodies, int n, Cell *cells,
                      unsigned *cell_count, unsigned capacity) {
  Cell c;
  c.level = parent.level + 1;
  child_corner(parent, k, c.x, c.y, c.z);
  int top = -1, prev = -1;
  unsigned prev_k = 0;
  for (;;) {
    unsigned at = atomicAdd(cell_count, 1);
    if (at >= capacity || c.level >= kBits) {
      APP_BAD(at);
      app::store_volatile(slot, j); // unlock, unchanged
      return false;
    }
    unsigned ki = octant(bodies[i], c.level), kj = octant(bodies[j], c.level);
    for (int s = 0; s < 8; ++s)
      c.child[s] = kNull;
    if (ki != kj) {
      c.child[ki] = i;
      c.child[kj] = j;
    }
    cells[at] = c;
    if (prev >= 0)
      cells[prev].child[prev_k] = n + static_cast<int>(at);
    else
      top = static_cast<int>(at);
    if (ki != kj)
      break;
    prev = static_cast<int>(at);
    prev_k = ki;
    Cell next;
    next.level = c.level + 1;
    child_corner(c, ki, next.x, next.y, next.z);
    c = next;
  }
  APP_FENCE(); // release: the new cells before the slot that links them
  app::store_volatile(slot, n + top);
  return true;
}

__global__ void insert(const Body *bodies, int n, Cell *cells,
                       unsigned *cell_count, unsigned capacity) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    int at = 0; // the root
    APP_WAIT(wait);
    for (;;) {
      Cell cell;
      cell.x = cells[at].x;
      cell.y = cells[at].y;
      cell.z = cells[at].z;
      cell.level = cells[at].level;
      if (cell.level >= kBits) {
        APP_BAD(at);
        return;
      }
      unsigned k = octant(bodies[i], cell.level);
      int *slot = &cells[at].child[k];
      int ch = app::load_volatile(slot);
      if (ch >= n) { // a cell: walk down
        APP_FENCE(); // acquire: the cell after the slot that links it
        at = ch - n;
        if (static_cast<unsigned>(at) >= capacity) {
          APP_BAD(ch);
          return;
        }
        continue;
      }
      if (ch == kNull) {
        if (atomicCAS(slot, kNull, i) == kNull)
          break;
      } else if (ch >= 0) { // a body: lock the slot and split it
        if (atomicCAS(slot, ch, kLock) == ch) {
          if (!split(slot, cell, k, i, ch, bodies, n, cells, cell_count,
                     capacity))
            return;
          break;
        }
      } else if (ch != kLock) {
        APP_BAD(ch);
        return;
      }
      if (!wait.more()) // locked, or lost a race: look again
        return;
    }
  }
}

// The CPU's count of the cells of the same tree.
unsigned count_cells(std::vector<Body> &b, size_t begin, size_t end,
                     unsigned level) {
  if (end - begin <= 1)
    return 0;
  auto mid = [&](unsigned bit, size_t lo, size_t hi) {
    return static_cast<size_t>(
        std::partition(b.begin() + lo, b.begin() + hi,
                       [&](const Body &x) { return (octant(x, level) & bit) == 0; }) -
        b.begin());
  };
  // Split on z, then y, then x: the eight octants as consecutive ranges.
  size_t z = mid(4, begin, end);
  size_t y0 = mid(2, begin, z), y1 = mid(2, z, end);
  size_t cut[9] = {begin, mid(1, begin, y0), y0, mid(1, y0, z), z,
                   mid(1, z, y1),  y1,       mid(1, y1, end), end};
  unsigned cells = 1;
  for (int k = 0; k < 8; ++k)
    cells += count_cells(b, cut[k], cut[k + 1], level + 1);
  return cells;
}

struct BarnesHut {
  static constexpr const char *name = "barneshut";
  static constexpr unsigned long long default_size = 1ull << 17;
  static constexpr const char *size_meaning = "bodies";

  explicit BarnesHut(const app::Options &o)
      : n_(static_cast<int>(o.size)),
        blocks_(o.blocks ? o.blocks : (n_ + kThreads - 1) / kThreads),
        bodies_(n_), cell_count_(1) {
    if (o.size >= (1ull << 31) - (1ull << 28))
      app::setup_error("--size: at most 2^31 - 2^28 bodies");
    // Distinct coordinates: a bijection on 63-bit words, cut in three.
    const unsigned long long m = (1ull << 63) - 1;
    host_.resize(n_);
    for (int i = 0; i < n_; ++i) {
      unsigned long long v = (i + o.seed * 0x9e3779b97f4a7c15ull) & m;
      v = (v * 0xbf58476d1ce4e5b9ull) & m;
      v ^= v >> 31;
      v = (v * 0x94d049bb133111ebull) & m;
      v ^= v >> 29;
      const unsigned mask = (1u << kBits) - 1;
      host_[i] = {static_cast<unsigned>(v) & mask,
                  static_cast<unsigned>(v >> kBits) & mask,
                  static_cast<unsigned>(v >> (2 * kBits)) & mask};
    }
    bodies_.upload(host_);
    std::vector<Body> copy = host_;
    expected_cells_ = std::max(1u, count_cells(copy, 0, copy.size(), 0));
    capacity_ = 2 * expected_cells_ + 64;
    cells_ = app::DeviceArray<Cell>(capacity_);
    cells_.fill_bytes(0xff); // only before the first run: cells are reused
  }

  app::Verdict run(app::Timer &t) {
    Cell root;
    for (int &c : root.child)
      c = kNull;
    root.x = root.y = root.z = root.level = 0;
    APP_CUDA(cudaMemcpy(cells_.get(), &root, sizeof root,
                        cudaMemcpyHostToDevice));
    unsigned one = 1;
    APP_CUDA(cudaMemcpy(cell_count_.get(), &one, sizeof one,
                        cudaMemcpyHostToDevice));
    t.start();
    insert<<<blocks_, kThreads>>>(bodies_.get(), n_, cells_.get(),
                                  cell_count_.get(), capacity_);
    t.stop();
    unsigned cells = std::min(cell_count_.download()[0], capacity_);
    return check(cells_.download(cells));
  }

  app::Verdict check(const std::vector<Cell> &cells) const {
    std::vector<char> seen(n_, 0), reached(cells.size(), 0);
    std::vector<int> todo{0};
    reached[0] = 1; // the root
    int bodies = 0;
    while (!todo.empty()) {
      int c = todo.back();
      todo.pop_back();
      const Cell &x = cells[c];
      for (unsigned k = 0; k < 8; ++k) {
        int v = x.child[k];
        if (v == kNull)
          continue;
        if (v >= 0 && v < n_) {
          const Body &b = host_[v];
          unsigned s = kBits - x.level;
          if (seen[v] || octant(b, x.level) != k || b.x >> s != x.x >> s ||
              b.y >> s != x.y >> s || b.z >> s != x.z >> s)
            return app::wrong(app::format(
                "body %d is %s in slot %u of cell %d", v,
                seen[v] ? "again" : "misfiled", k, c));
          seen[v] = 1;
          ++bodies;
          continue;
        }
        size_t y = static_cast<size_t>(v) - n_;
        if (v < n_ || y >= cells.size() || reached[y])
          return app::wrong(app::format(
              "slot %u of cell %d holds %d (%s)", k, c, v,
              v == kLock ? "still locked"
              : v < n_   ? "no body or cell"
              : y >= cells.size() ? "beyond the cells made"
                                  : "a cell reached twice"));
        reached[y] = 1;
        unsigned cx, cy, cz;
        child_corner(x, k, cx, cy, cz);
        const Cell &z = cells[y];
        if (z.level != x.level + 1 || z.x != cx || z.y != cy || z.z != cz)
          return app::wrong(app::format(
              "cell %zu is not octant %u of its parent %d", y, k, c));
        todo.push_back(static_cast<int>(y));
      }
    }
    size_t made = cells.size();
    size_t reachable = std::count(reached.begin(), reached.end(), 1);
    if (bodies != n_ || made != expected_cells_ || reachable != made)
      return app::wrong(app::format(
          "%d of %d bodies in the tree; %zu cells made, %zu reachable, the "
          "CPU's tree has %u",
          bodies, n_, made, reachable, expected_cells_));
    return app::pass(app::format("%d bodies in %zu cells, the CPU's tree", n_,
                                 made));
  }

  int n_;
  unsigned blocks_, expected_cells_ = 0, capacity_ = 0;
  std::vector<Body> host_;
  app::DeviceArray<Body> bodies_;
  app::DeviceArray<Cell> cells_;
  app::DeviceArray<unsigned> cell_count_;
};

} // namespace

int main(int argc, char **argv) { return app::main<BarnesHut>(argc, argv); }
