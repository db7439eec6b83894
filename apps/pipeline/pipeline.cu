// Message-passing pipeline with relaxed atomics and fences.
//
// kStages blocks per channel form a pipeline: stage 0 makes each message,
// every later stage waits for the message from the stage before, transforms
// it and passes it on. A message is four words written with ordinary stores
// and a flag written with a relaxed atomic store (cuda::atomic_ref); the
// flag holds the number of the run, so flags need no clearing between runs.
// The reader polls the flag with relaxed atomic loads. This is message
// passing: the writer needs a release fence between the payload and the
// flag, the reader an acquire fence between the flag and the payload
// (cuda::atomic_thread_fence at device scope). Without them a stage may
// read the payload that an earlier run left there.
//
// Blocks take their (stage, channel) from an atomic counter in stage order,
// so a block only ever waits for blocks that started before it.
//
// Post-condition: every message leaves the last stage with exactly the
// value the CPU computes.
#include "../common/app.h"

namespace {

constexpr int kThreads = 128;
constexpr unsigned kStages = 8;

__host__ __device__ unsigned rotl(unsigned x, unsigned r) {
  return (x << r) | (x >> (32 - r));
}
// Stage 0's message m of channel c in run `run`.
__host__ __device__ uint4 source(unsigned c, unsigned m, unsigned run) {
  unsigned h = (c * 0x9e3779b9u) ^ (m * 0x85ebca6bu) ^ (run * 0xc2b2ae35u);
  return make_uint4(h, rotl(h, 7) + 1, rotl(h, 13) + 2, rotl(h, 21) + 3);
}
// What stage s (1..kStages-1) does to a message: one ARX round.
__host__ __device__ uint4 transform(uint4 v, unsigned s) {
  v.x += v.y ^ s;
  v.y = rotl(v.y ^ v.z, 9);
  v.z += rotl(v.w, 17) + s * 0x27d4eb2du;
  v.w ^= v.x + v.z;
  return v;
}

__global__ void flow(unsigned channels, unsigned messages, unsigned run,
                     unsigned *next_block, uint4 *payload, unsigned *flag) {
  __shared__ unsigned id;
  if (threadIdx.x == 0)
    id = atomicAdd(next_block, 1);
  __syncthreads();
  unsigned stage = id / channels, channel = id % channels;
  if (stage >= kStages)
    return;
  // Box (stage, channel, message): written by `stage`, read by stage + 1.
  size_t out = (size_t(stage) * channels + channel) * messages;
  for (unsigned m = threadIdx.x; m < messages; m += kThreads) {
    uint4 v;
    if (stage == 0) {
      v = source(channel, m, run);
    } else {
      size_t in = out - size_t(channels) * messages + m; // the stage before
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> ready(flag[in]);
      APP_WAIT(wait);
      while (ready.load(cuda::memory_order_relaxed) != run)
        if (!wait.more())
          return; // reported as a hang by the host
      APP_FENCE_ACQUIRE(); // the payload after its flag
      v = transform(payload[in], stage);
    }
    payload[out + m] = v;
    APP_FENCE_RELEASE(); // the payload before its flag
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(flag[out + m])
        .store(run, cuda::memory_order_relaxed);
  }
}

struct Pipeline {
  static constexpr const char *name = "pipeline";
  static constexpr unsigned long long default_size = 1ull << 17;
  static constexpr const char *size_meaning =
      "messages, spread over the channels";

  explicit Pipeline(const app::Options &o)
      : channels_(std::max(1u, app::default_blocks(o, 8) / kStages)),
        messages_(static_cast<unsigned>(
            std::max<unsigned long long>(1, o.size / channels_))),
        next_block_(1), payload_(size_t(kStages) * channels_ * messages_),
        flag_(size_t(kStages) * channels_ * messages_) {
    payload_.fill_bytes(0);
    flag_.fill_bytes(0); // run numbers start at 1
  }

  app::Verdict run(app::Timer &t) {
    ++run_;
    next_block_.fill_bytes(0);
    t.start();
    flow<<<kStages * channels_, kThreads>>>(channels_, messages_, run_,
                                            next_block_.get(), payload_.get(),
                                            flag_.get());
    t.stop();
    std::vector<uint4> last = payload_.download(
        size_t(channels_) * messages_,
        size_t(kStages - 1) * channels_ * messages_);
    for (unsigned c = 0; c < channels_; ++c)
      for (unsigned m = 0; m < messages_; ++m) {
        uint4 want = source(c, m, run_);
        for (unsigned s = 1; s < kStages; ++s)
          want = transform(want, s);
        uint4 got = last[size_t(c) * messages_ + m];
        if (got.x != want.x || got.y != want.y || got.z != want.z ||
            got.w != want.w)
          return app::wrong(app::format(
              "message %u of channel %u left as %08x %08x %08x %08x, "
              "expected %08x %08x %08x %08x",
              m, c, got.x, got.y, got.z, got.w, want.x, want.y, want.z,
              want.w));
      }
    return app::pass(app::format("%u channels of %u messages through %u "
                                 "stages, every message exact",
                                 channels_, messages_, kStages));
  }

  unsigned channels_, messages_, run_ = 0;
  app::DeviceArray<unsigned> next_block_;
  app::DeviceArray<uint4> payload_;
  app::DeviceArray<unsigned> flag_;
};

} // namespace

int main(int argc, char **argv) { return app::main<Pipeline>(argc, argv); }
