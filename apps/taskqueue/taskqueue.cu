// Task queues under locks, with producers and consumers in every block (the
// idiom of Tzeng, Patney and Owens's task management).
//
// Workers (one thread per warp) take tasks from a set of ring-buffer queues,
// each guarded by a spin lock, run them, and put the tasks they spawn back
// into a queue. Each root task unfolds into a binary tree of kDepth levels,
// so the work grows and moves between blocks as it runs. A queue's head,
// tail and slots are read and written with ordinary loads and stores under
// its lock, so the lock needs a fence after it is taken (acquire) and one
// before it is released (release). Without them a worker may read an old
// head or tail, or a slot before the task in it arrived, and run a task
// twice or lose one (the run then waits for a task that never comes).
//
// Post-condition: every task of every tree ran exactly once.
#include "../common/app.h"

namespace {

constexpr int kThreads = 128;  // four workers per block
constexpr unsigned kDepth = 7; // a root unfolds into 2^(kDepth+1)-1 tasks
constexpr unsigned kTreeSize = (2u << kDepth) - 1;

struct Task {
  unsigned root, node; // node: heap numbering in the root's tree
};
struct Queue {
  int lock;
  unsigned head, tail; // tasks in [head, tail), slot = index % capacity
};
struct Queues {
  Queue *q;
  Task *slots;
  unsigned count, capacity;
};

__device__ bool lock(int *mutex) {
  APP_WAIT(wait);
  while (atomicCAS(mutex, 0, 1) != 0)
    if (!wait.more())
      return false;
  APP_FENCE(); // acquire: the queue as its last holder left it
  return true;
}

__device__ void unlock(int *mutex) {
  APP_FENCE(); // release: the queue's new state before the lock is free
  atomicExch(mutex, 0);
}

// 1: took a task, 0: the queue was empty, -1: the lock never came.
__device__ int dequeue(Queues qs, unsigned i, Task &task) {
  Queue &q = qs.q[i];
  // A look without the lock, to pass empty queues by; decided under it.
  if (app::load_volatile(&q.head) == app::load_volatile(&q.tail))
    return 0;
  if (!lock(&q.lock))
    return -1;
  int got = 0;
  if (q.head != q.tail) {
    task = qs.slots[size_t(i) * qs.capacity + q.head % qs.capacity];
    q.head += 1;
    got = 1;
  }
  unlock(&q.lock);
  return got;
}

// 1: queued, 0: the queue was full, -1: the lock never came.
__device__ int enqueue(Queues qs, unsigned i, Task task) {
  Queue &q = qs.q[i];
  if (!lock(&q.lock))
    return -1;
  int put = 0;
  if (q.tail - q.head < qs.capacity) {
    qs.slots[size_t(i) * qs.capacity + q.tail % qs.capacity] = task;
    q.tail += 1;
    put = 1;
  }
  unlock(&q.lock);
  return put;
}

__device__ bool enqueue_somewhere(Queues qs, unsigned home, Task task) {
  for (unsigned k = 0; k < qs.count; ++k) {
    int r = enqueue(qs, (home + k) % qs.count, task);
    if (r != 0)
      return r > 0;
  }
  APP_BAD(task.node); // every queue full: more tasks than ever exist
  return false;
}

__global__ void work(Queues qs, unsigned roots, unsigned *runs, int *pending) {
  if (threadIdx.x % 32 != 0)
    return;
  unsigned worker = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  unsigned home = worker % qs.count;
  APP_WAIT(idle);
  for (;;) {
    Task t;
    int got = 0;
    for (unsigned k = 0; k < qs.count && got == 0; ++k)
      got = dequeue(qs, (home + k) % qs.count, t);
    if (got < 0)
      return;
    if (got == 0) {
      if (app::load_volatile(pending) == 0 || !idle.more())
        return;
      continue;
    }
    idle.restart();
    if (t.root >= roots || t.node >= kTreeSize) {
      APP_BAD(t.node);
      return;
    }
    atomicAdd(&runs[size_t(t.root) * kTreeSize + t.node], 1u); // run it
    int spawned = 0;
    if (t.node < kTreeSize / 2) { // not a leaf of its tree
      for (unsigned c = 1; c <= 2; ++c) {
        if (!enqueue_somewhere(qs, home, Task{t.root, 2 * t.node + c}))
          return;
        ++spawned;
      }
    }
    atomicAdd(pending, spawned - 1); // children in, this task out
  }
}

struct TaskQueue {
  static constexpr const char *name = "taskqueue";
  static constexpr unsigned long long default_size = 1ull << 17;
  static constexpr const char *size_meaning =
      "tasks, rounded to whole trees of 255";

  explicit TaskQueue(const app::Options &o)
      : roots_(static_cast<unsigned>(
            std::max<unsigned long long>(1, o.size / kTreeSize))),
        blocks_(app::default_blocks(o, 4)), queues_(256),
        runs_(size_t(roots_) * kTreeSize), pending_(1) {
    // Room for twice the tasks that exist, spread over the queues.
    unsigned long long tasks = size_t(roots_) * kTreeSize;
    capacity_ = static_cast<unsigned>(2 * tasks / queues_ + 2);
    q_ = app::DeviceArray<Queue>(queues_);
    slots_ = app::DeviceArray<Task>(size_t(queues_) * capacity_);
    // The roots, dealt round the queues: the first slots of each.
    per_queue_ = (roots_ + queues_ - 1) / queues_;
    start_q_.assign(queues_, Queue{0, 0, 0});
    start_slots_.assign(size_t(queues_) * per_queue_, Task{~0u, ~0u});
    for (unsigned r = 0; r < roots_; ++r) {
      Queue &x = start_q_[r % queues_];
      start_slots_[size_t(r % queues_) * per_queue_ + x.tail++] = Task{r, 0};
    }
  }

  app::Verdict run(app::Timer &t) {
    q_.upload(start_q_);
    slots_.fill_bytes(0xff); // what a read that comes too early finds
    APP_CUDA(cudaMemcpy2D(slots_.get(), capacity_ * sizeof(Task),
                          start_slots_.data(), per_queue_ * sizeof(Task),
                          per_queue_ * sizeof(Task), queues_,
                          cudaMemcpyHostToDevice));
    runs_.fill_bytes(0);
    APP_CUDA(cudaMemcpy(pending_.get(), &roots_, sizeof roots_,
                        cudaMemcpyHostToDevice));
    t.start();
    work<<<blocks_, kThreads>>>(Queues{q_.get(), slots_.get(), queues_,
                                       capacity_},
                                roots_, runs_.get(), pending_.get());
    t.stop();
    std::vector<unsigned> runs = runs_.download();
    for (size_t i = 0; i < runs.size(); ++i)
      if (runs[i] != 1)
        return app::wrong(app::format(
            "task %zu of tree %zu ran %u times", i % kTreeSize,
            i / kTreeSize, runs[i]));
    return app::pass(app::format("%zu tasks of %u trees, each ran once, %u "
                                 "queues, %u workers",
                                 runs.size(), roots_, queues_,
                                 blocks_ * (kThreads / 32)));
  }

  unsigned roots_, blocks_, queues_, capacity_ = 0, per_queue_ = 0;
  std::vector<Queue> start_q_;
  std::vector<Task> start_slots_;
  app::DeviceArray<Queue> q_;
  app::DeviceArray<Task> slots_;
  app::DeviceArray<unsigned> runs_;
  app::DeviceArray<int> pending_;
};

} // namespace

int main(int argc, char **argv) { return app::main<TaskQueue>(argc, argv); }
