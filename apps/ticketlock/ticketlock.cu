// Ticket lock.
//
// A thread takes the next ticket with atomicAdd and waits until the
// "now serving" counter shows its ticket; leaving, it moves the counter on.
// Threads enter in ticket order. Inside, the holder appends to a shared log
// with ordinary loads and stores: it reads the log's length, writes its
// entry there and stores the new length. The lock hands those accesses from
// holder to holder, so it needs a fence after the wait ends (acquire) and
// one before the counter moves (release). Without them the next holder may
// read an old length and overwrite an entry.
//
// Post-condition: the log holds every acquisition exactly once, each at the
// position of its ticket, and its checksum matches.
#include "../common/app.h"

namespace {

constexpr int kThreads = 32; // thread 0 of each block takes the lock

struct TicketLock {
  unsigned next, serving;
};
struct Log {
  unsigned length;
  unsigned long long checksum;
};

__host__ __device__ unsigned long long weight(unsigned a) {
  return (a + 1ull) * 0x9e3779b97f4a7c15ull;
}

__device__ bool acquire(TicketLock *l, unsigned &ticket) {
  ticket = atomicAdd(&l->next, 1);
  APP_WAIT(wait);
  while (app::load_volatile(&l->serving) != ticket)
    if (!wait.more())
      return false;
  APP_FENCE(); // acquire: see what the previous holders wrote
  return true;
}

__device__ void release(TicketLock *l, unsigned ticket) {
  APP_FENCE(); // release: our writes before the next ticket is served
  app::store_volatile(&l->serving, ticket + 1);
}

__global__ void append(unsigned acquisitions, unsigned rounds, TicketLock *l,
                       Log *log, unsigned *entries, unsigned *ticket_of) {
  if (threadIdx.x != 0)
    return;
  for (unsigned r = 0; r < rounds; ++r) {
    unsigned a = blockIdx.x * rounds + r; // this acquisition's name
    if (a >= acquisitions)
      return;
    unsigned ticket;
    if (!acquire(l, ticket))
      return; // reported as a hang by the host
    unsigned at = log->length;
    if (at < acquisitions)
      entries[at] = a;
    log->length = at + 1;
    log->checksum += weight(a);
    ticket_of[a] = ticket;
    release(l, ticket);
  }
}

struct Ticket {
  static constexpr const char *name = "ticketlock";
  static constexpr unsigned long long default_size = 2048;
  static constexpr const char *size_meaning = "lock acquisitions";

  explicit Ticket(const app::Options &o)
      : n_(static_cast<unsigned>(o.size)),
        blocks_(std::min(n_, app::default_blocks(o, 8))),
        rounds_((n_ + blocks_ - 1) / blocks_), lock_(1), log_(1), entries_(n_),
        ticket_of_(n_) {
    for (unsigned a = 0; a < n_; ++a)
      expected_checksum_ += weight(a);
  }

  app::Verdict run(app::Timer &t) {
    lock_.fill_bytes(0);
    log_.fill_bytes(0);
    entries_.fill_bytes(0xff);
    ticket_of_.fill_bytes(0xff);
    t.start();
    append<<<blocks_, kThreads>>>(n_, rounds_, lock_.get(), log_.get(),
                                  entries_.get(), ticket_of_.get());
    t.stop();
    Log log = log_.download()[0];
    std::vector<unsigned> entries = entries_.download();
    std::vector<unsigned> ticket_of = ticket_of_.download();
    if (log.length != n_ || log.checksum != expected_checksum_)
      return app::wrong(app::format(
          "the log has %u entries (checksum %016llx), expected %u (%016llx)",
          log.length, log.checksum, n_, expected_checksum_));
    std::vector<char> seen(n_, 0);
    for (unsigned at = 0; at < n_; ++at) {
      unsigned a = entries[at];
      if (a >= n_ || seen[a] || ticket_of[a] != at)
        return app::wrong(app::format(
            "log entry %u is acquisition %u (ticket %u): %s", at, a,
            a < n_ ? ticket_of[a] : ~0u,
            a >= n_ ? "never written" : seen[a] ? "twice" : "out of turn"));
      seen[a] = 1;
    }
    return app::pass(app::format("%u acquisitions by %u blocks, logged in "
                                 "ticket order",
                                 n_, blocks_));
  }

  unsigned n_, blocks_, rounds_;
  unsigned long long expected_checksum_ = 0;
  app::DeviceArray<TicketLock> lock_;
  app::DeviceArray<Log> log_;
  app::DeviceArray<unsigned> entries_, ticket_of_;
};

} // namespace

int main(int argc, char **argv) { return app::main<Ticket>(argc, argv); }
