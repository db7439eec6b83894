// Lock-free stacks (Treiber's) with release/acquire atomics, through
// cuda::atomic_ref: an idiom the PLDI'16 study did not have.
//
// Every thread pushes a fresh node and then pops a node, kRounds times, on
// one of kStacks stacks (chosen per warp, so the threads of many blocks
// share each). A push writes the node's value and next link with ordinary
// stores and swings the head to the node with a compare-and-swap; a pop
// reads the head, reads that node's next link and value with ordinary loads,
// and swings the head to the next node. Nodes are never reused within a
// run, so there is no ABA problem. The push's CAS must be a release (the
// node before the head that names it) and the pop's loads of the head
// acquires (the node after the head): the ordering rides on the atomics
// themselves, with no fence instruction. Without it a pop may follow a next
// link that has not arrived (an old one from an earlier run) and lose or
// repeat nodes.
//
// Post-condition: every pushed value is popped exactly once, and every
// stack ends empty.
#include "../common/app.h"

namespace {

constexpr int kThreads = 128;
constexpr unsigned kRounds = 4;    // push-pop pairs per thread
constexpr unsigned kStacks = 256;
constexpr unsigned kHeadStride = 32; // one head per 128-byte line
constexpr unsigned kNil = ~0u;

struct Node {
  unsigned value, next;
};
using Head = cuda::atomic_ref<unsigned, cuda::thread_scope_device>;

// A node's value in run `run`: the node's number under a mask that changes
// from run to run, so that a value left by an earlier run shows.
__host__ __device__ unsigned run_mask(unsigned run) {
  return run * 0x9e3779b9u ^ 0x5bd1e995u;
}

__device__ bool push(Head head, Node *nodes, unsigned n) {
  unsigned old = head.load(cuda::memory_order_relaxed);
  APP_WAIT(wait);
  for (;;) {
    nodes[n].next = old;
    if (head.compare_exchange_weak(old, n, APP_RELEASE,
                                   cuda::memory_order_relaxed))
      return true;
    if (!wait.more())
      return false;
  }
}

// The popped node's value, or false if the stack was empty or the pop never
// succeeded.
__device__ bool pop(Head head, const Node *nodes, unsigned total,
                    unsigned &value) {
  unsigned old = head.load(APP_ACQUIRE);
  APP_WAIT(wait);
  for (;;) {
    if (old >= total) { // empty (kNil) or nonsense: a node was lost
      APP_BAD(old);
      return false;
    }
    unsigned next = nodes[old].next;
    if (head.compare_exchange_weak(old, next, APP_ACQUIRE, APP_ACQUIRE)) {
      value = nodes[old].value;
      return true;
    }
    if (!wait.more())
      return false;
  }
}

__global__ void churn(unsigned threads, unsigned run, unsigned *heads,
                      Node *nodes, unsigned *popped) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads)
    return;
  Head head(heads[((t / 32) % kStacks) * kHeadStride]);
  unsigned total = threads * kRounds;
  for (unsigned r = 0; r < kRounds; ++r) {
    unsigned n = t * kRounds + r;
    nodes[n].value = n ^ run_mask(run);
    unsigned value;
    if (!push(head, nodes, n) || !pop(head, nodes, total, value))
      return; // reported by the host
    popped[n] = value;
  }
}

struct Stack {
  static constexpr const char *name = "stack";
  static constexpr unsigned long long default_size = 1ull << 18;
  static constexpr const char *size_meaning = "push-pop pairs";

  explicit Stack(const app::Options &o)
      : threads_(static_cast<unsigned>(
            std::max<unsigned long long>(1, o.size / kRounds))),
        blocks_(o.blocks ? o.blocks : (threads_ + kThreads - 1) / kThreads),
        heads_(kStacks * kHeadStride), nodes_(size_t(threads_) * kRounds),
        popped_(size_t(threads_) * kRounds) {
    if (size_t(blocks_) * kThreads < threads_)
      app::setup_error(app::format("--blocks: %u blocks of %d threads are "
                                   "fewer than the %u threads needed",
                                   blocks_, kThreads, threads_));
    nodes_.fill_bytes(0xff);
  }

  app::Verdict run(app::Timer &t) {
    ++run_;
    heads_.fill_bytes(0xff); // kNil: every stack empty
    popped_.fill_bytes(0xff);
    t.start();
    churn<<<blocks_, kThreads>>>(threads_, run_, heads_.get(), nodes_.get(),
                                 popped_.get());
    t.stop();
    std::vector<unsigned> heads = heads_.download();
    std::vector<unsigned> popped = popped_.download();
    size_t total = popped.size();
    std::vector<char> seen(total, 0);
    for (size_t i = 0; i < total; ++i) {
      unsigned n = popped[i] ^ run_mask(run_);
      if (n >= total || seen[n])
        return app::wrong(app::format(
            "pop %zu returned value %08x: %s", i, popped[i],
            n >= total ? "no node of this run holds it" : "popped twice"));
      seen[n] = 1;
    }
    for (unsigned s = 0; s < kStacks; ++s)
      if (heads[s * kHeadStride] != kNil)
        return app::wrong(app::format("stack %u ends holding node %u", s,
                                      heads[s * kHeadStride]));
    return app::pass(app::format("%zu pushes and pops on %u stacks, every "
                                 "value popped once",
                                 total, kStacks));
  }

  unsigned threads_, blocks_, run_ = 0;
  app::DeviceArray<unsigned> heads_;
  app::DeviceArray<Node> nodes_;
  app::DeviceArray<unsigned> popped_;
};

} // namespace

int main(int argc, char **argv) { return app::main<Stack>(argc, argv); }
