#include "services/common/redis/redis_politeness.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace crawler::redis {
namespace {

using politeness::ClaimRequest;
using politeness::ClaimResult;
using politeness::HostFeedback;
using politeness::ReleaseRequest;
using politeness::ReleaseResult;

// The claim: KEYS = epoch, host hash [, address hash]; ARGV = token, spacing (µs), max
// connections, slot ttl (µs), idle ttl (ms), host floor (µs), address floor (µs), fresh grace
// (µs). Returns {granted, wait µs, now µs, next allowed µs}. A hash holds n (next allowed start),
// s (spacing) and f (failures) of a host, and one field "@<token>" per claimed slot whose value
// is the slot's expiry: one HGETALL reads everything the claim decides on.
constexpr char kClaimScript[] = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local token, spacing, maxc = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local slot_ttl, idle, grace = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[8])
local epoch = tonumber(redis.call('GET', KEYS[1]))
if not epoch then
  epoch = now
  redis.call('SET', KEYS[1], now)
end
local fresh = now - epoch < grace
-- A hash's next allowed start raised to the caller's floor (an unknown key in a fresh Redis
-- waits one spacing), its spacing, its live slots and their latest expiry; expired slots go.
local function load(key, floor)
  local h = redis.call('HGETALL', key)
  local st = {n = nil, s = 0, slots = 0, last = now, write = false}
  local dead = {}
  for i = 1, #h, 2 do
    local f = h[i]
    if f == 'n' then
      st.n = tonumber(h[i + 1])
    elseif f == 's' then
      st.s = tonumber(h[i + 1])
    elseif string.byte(f, 1) == 64 then
      local e = tonumber(h[i + 1])
      if e <= now then
        dead[#dead + 1] = f
      else
        st.slots = st.slots + 1
        st.last = math.max(st.last, e)
      end
    end
  end
  if #dead > 0 then redis.call('HDEL', key, unpack(dead)) end
  if st.n then
    if floor > st.n then st.n, st.write = floor, true end
  elseif fresh then
    st.n, st.write = math.max(now + spacing, floor), true
  else
    st.n, st.write = floor, floor > now
  end
  return st
end
-- Kept `idle` past its next allowed start and past its last slot's expiry.
local function expire(key, n, last)
  redis.call('PEXPIRE', key, math.floor((math.max(n, last) - now) / 1000) + idle)
end
local with_ip = #KEYS == 3
local host = load(KEYS[2], tonumber(ARGV[6]))
local ip = nil
if with_ip then ip = load(KEYS[3], tonumber(ARGV[7])) end
local wait = math.max(host.n - now, 0)
local full = host.slots >= maxc
if ip then
  wait = math.max(wait, ip.n - now)
  full = full or ip.slots >= maxc
end
if wait > 0 or full then
  if host.write then
    redis.call('HSET', KEYS[2], 'n', host.n)
    expire(KEYS[2], host.n, host.last)
  end
  if ip and ip.write then
    redis.call('HSET', KEYS[3], 'n', ip.n)
    expire(KEYS[3], ip.n, ip.last)
  end
  return {0, wait, now, math.max(host.n, ip and ip.n or 0)}
end
local n = now + math.max(spacing, host.s)
local slot, until_ = '@' .. token, now + slot_ttl
redis.call('HSET', KEYS[2], 'n', n, slot, until_)
expire(KEYS[2], n, math.max(host.last, until_))
if ip then
  redis.call('HSET', KEYS[3], 'n', n, slot, until_)
  expire(KEYS[3], n, math.max(ip.last, until_))
end
return {1, 0, now, n}
)lua";

// The release: KEYS as the claim's; ARGV = token, spacing (µs), idle ttl (ms), slot ttl (µs),
// delay after a success (µs), then, after a failure only, the delays after 1, 2, ... K
// consecutive failures (the last one for every count past K). Returns {now µs, next allowed µs}.
constexpr char kReleaseScript[] = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local slot, idle, slot_ttl = '@' .. ARGV[1], tonumber(ARGV[3]), tonumber(ARGV[4])
local h = redis.call('HMGET', KEYS[2], 'n', 'f')
local delay
if #ARGV > 5 then
  local f = (tonumber(h[2]) or 0) + 1
  delay = tonumber(ARGV[5 + math.min(f, #ARGV - 5)])
  redis.call('HDEL', KEYS[2], slot)
  redis.call('HSET', KEYS[2], 'f', f)
else
  redis.call('HDEL', KEYS[2], slot, 'f')
  delay = tonumber(ARGV[5])
end
-- Pushes a hash's next allowed start out to now + delay; kept `idle` past it and past any slot
-- still held (at most slot_ttl from now).
local function push(key, n)
  n = math.max(tonumber(n or 0), now + delay)
  redis.call('PEXPIRE', key, math.floor(math.max(n - now, slot_ttl) / 1000) + idle)
  return n
end
local n = math.max(tonumber(h[1] or 0), now + delay)
redis.call('HSET', KEYS[2], 'n', n, 's', ARGV[2])
push(KEYS[2], n)
if #KEYS == 3 then
  local inx = redis.call('HGET', KEYS[3], 'n')
  redis.call('HDEL', KEYS[3], slot)
  inx = math.max(tonumber(inx or 0), now + delay)
  redis.call('HSET', KEYS[3], 'n', inx)
  push(KEYS[3], inx)
  n = math.max(n, inx)
end
return {now, n}
)lua";

int64_t Micros(absl::Duration d) { return absl::ToInt64Microseconds(d); }

// Integer i of an array reply (0 when missing or of another type).
int64_t IntAt(const redisReply& reply, size_t i) {
  if (reply.type != REDIS_REPLY_ARRAY || i >= reply.elements) return 0;
  const redisReply* e = reply.element[i];
  return e->type == REDIS_REPLY_INTEGER ? e->integer : 0;
}

// Back-off steps worth sending: the doubling reaches error_backoff_max after this many
// failures, and every later count gets the same delay.
int BackoffSteps(const politeness::PolitenessOptions& o) {
  int steps = 1;
  while (steps < 31 && o.error_backoff_base * (int64_t{1} << (steps - 1)) < o.error_backoff_max) {
    ++steps;
  }
  return steps;
}

}  // namespace

struct RedisPoliteness::Held {
  std::string token;
  std::string ip;
  std::optional<absl::Duration> crawl_delay;
  absl::Duration host_delay;
};

RedisPoliteness::RedisPoliteness(const RedisPolitenessOptions& options,
                                 const politeness::PolitenessOptions& policy, const Clock& clock,
                                 uint64_t seed)
    : options_(options),
      policy_(policy),
      clock_(clock),
      instance_(absl::StrFormat("%016x", std::random_device{}() ^ (seed * 0x9E3779B97F4A7C15ull) ^
                                             static_cast<uint64_t>(absl::ToUnixNanos(clock.Now())))),
      rng_(seed) {}

RedisPoliteness::~RedisPoliteness() = default;

absl::StatusOr<std::unique_ptr<RedisPoliteness>> RedisPoliteness::Create(
    const RedisPolitenessOptions& options, const politeness::PolitenessOptions& policy,
    const Clock& clock, uint64_t seed) {
  std::unique_ptr<RedisPoliteness> p(new RedisPoliteness(options, policy, clock, seed));
  absl::StatusOr<std::unique_ptr<RedisConnection>> connection =
      RedisConnection::Connect(options.redis);
  if (!connection.ok()) return connection.status();
  absl::StatusOr<std::pair<std::string, std::string>> shas = p->LoadScripts(**connection);
  if (!shas.ok()) return shas.status();
  std::tie(p->claim_sha_, p->release_sha_) = *std::move(shas);
  p->Recycle(*std::move(connection));
  return p;
}

absl::StatusOr<std::pair<std::string, std::string>> RedisPoliteness::LoadScripts(
    RedisConnection& connection) const {
  absl::StatusOr<std::vector<Reply>> replies = connection.Pipeline(
      {{"SCRIPT", "LOAD", kClaimScript}, {"SCRIPT", "LOAD", kReleaseScript}});
  if (!replies.ok()) return replies.status();
  std::string shas[2];
  for (size_t i = 0; i < 2; ++i) {
    const redisReply& r = *(*replies)[i];
    if (r.type != REDIS_REPLY_STRING) {
      return absl::FailedPreconditionError(
          absl::StrCat(options_.redis.address.ToString(), " cannot load the politeness scripts: ",
                       ReplyError(r)));
    }
    shas[i] = std::string(r.str, r.len);
  }
  // The SHA-1 of a script's text: a reload yields the values Create kept.
  return std::make_pair(std::move(shas[0]), std::move(shas[1]));
}

absl::StatusOr<std::unique_ptr<RedisConnection>> RedisPoliteness::Acquire(bool& fail_fast) {
  {
    absl::MutexLock lock(&mu_);
    if (down_ && clock_.MonotonicNow() < retry_at_) {
      ++stats_.unavailable;
      fail_fast = true;
      return absl::UnavailableError(
          absl::StrCat("politeness store ", options_.redis.address.ToString(), " unreachable"));
    }
    if (!idle_.empty()) {
      std::unique_ptr<RedisConnection> connection = std::move(idle_.back());
      idle_.pop_back();
      return connection;
    }
  }
  absl::StatusOr<std::unique_ptr<RedisConnection>> connection =
      RedisConnection::Connect(options_.redis);
  if (!connection.ok()) return connection.status();
  // A Redis restarted since the scripts were loaded has forgotten them.
  if (absl::Status s = LoadScripts(**connection).status(); !s.ok()) return s;
  return connection;
}

void RedisPoliteness::Recycle(std::unique_ptr<RedisConnection> connection) {
  absl::MutexLock lock(&mu_);
  if (down_) {
    options_.log.Info(
        "politeness: Redis at ", options_.redis.address.ToString(), " answers again after ",
        absl::StrFormat("%.1f", absl::ToDoubleSeconds(clock_.MonotonicNow() - down_since_)), " s");
    down_ = false;
  }
  if (!connection->broken() && static_cast<int>(idle_.size()) < options_.max_idle_connections) {
    idle_.push_back(std::move(connection));
  }
}

absl::Status RedisPoliteness::Failed(const absl::Status& cause) {
  absl::MutexLock lock(&mu_);
  const absl::Duration now = clock_.MonotonicNow();
  ++stats_.unavailable;
  if (!down_) {
    down_ = true;
    down_since_ = now;
    retry_wait_ = absl::Milliseconds(100);
    ++stats_.outages;
    idle_.clear();  // their server is gone or confused
    options_.log.Warning("politeness: Redis at ", options_.redis.address.ToString(),
                         " unreachable (", cause.message(),
                         "); no request is sent until it answers again");
  } else {
    retry_wait_ = std::min(retry_wait_ * 2, absl::Seconds(5));
  }
  retry_at_ = now + retry_wait_;
  return absl::UnavailableError(absl::StrCat("politeness store unreachable: ", cause.message()));
}

absl::StatusOr<std::vector<Reply>> RedisPoliteness::Run(
    std::vector<std::vector<std::string>> commands) {
  bool fail_fast = false;  // inside an outage already logged, before its next retry
  absl::StatusOr<std::unique_ptr<RedisConnection>> connection = Acquire(fail_fast);
  if (!connection.ok()) return fail_fast ? connection.status() : Failed(connection.status());
  absl::StatusOr<std::vector<Reply>> replies = (*connection)->Pipeline(commands);
  uint64_t trips = 1;
  if (replies.ok()) {
    // NOSCRIPT: the server lost the scripts (SCRIPT FLUSH) but kept the connection. Load them
    // again and run what it refused once more.
    std::vector<size_t> again;
    for (size_t i = 0; i < replies->size(); ++i) {
      if (absl::StartsWith(ReplyError(*(*replies)[i]), "NOSCRIPT")) again.push_back(i);
    }
    if (!again.empty()) {
      if (absl::Status s = LoadScripts(**connection).status(); !s.ok()) return Failed(s);
      std::vector<std::vector<std::string>> retry;
      for (size_t i : again) retry.push_back(commands[i]);
      absl::StatusOr<std::vector<Reply>> second = (*connection)->Pipeline(retry);
      trips += 2;
      if (!second.ok()) {
        replies = second.status();
      } else {
        for (size_t j = 0; j < again.size(); ++j) (*replies)[again[j]] = std::move((*second)[j]);
      }
    }
  }
  if (replies.ok()) {
    for (const Reply& r : *replies) {
      // A server that is loading, read-only or out of memory answers every script alike.
      if (std::string error = ReplyError(*r); !error.empty()) {
        return Failed(absl::UnavailableError(error));
      }
    }
  }
  {
    absl::MutexLock lock(&mu_);
    stats_.round_trips += trips;
  }
  if (!replies.ok()) return Failed(replies.status());
  Recycle(*std::move(connection));
  return replies;
}

std::vector<std::string> RedisPoliteness::Keys(const std::string& host_key,
                                               const std::string& ip) const {
  const std::string& p = options_.key_prefix;
  std::vector<std::string> keys = {absl::StrCat(p, "epoch"), absl::StrCat(p, "h:", host_key)};
  if (!ip.empty()) keys.push_back(absl::StrCat(p, "i:", ip));
  return keys;
}

int64_t RedisPoliteness::EstimatedRedisNow() const {
  return Micros(clock_.MonotonicNow()) + redis_offset_;
}

void RedisPoliteness::LearnRedisNow(int64_t redis_now) {
  redis_offset_ = redis_now - Micros(clock_.MonotonicNow());
  offset_known_ = true;
}

int64_t RedisPoliteness::Floor(const absl::flat_hash_map<std::string, int64_t>& floors,
                               const std::string& key) const {
  if (!offset_known_) return 0;
  auto it = floors.find(key);
  return it != floors.end() && it->second > EstimatedRedisNow() ? it->second : 0;
}

void RedisPoliteness::Remember(absl::flat_hash_map<std::string, int64_t>& floors,
                               const std::string& key, int64_t next) {
  if (key.empty()) return;
  int64_t& floor = floors[key];
  floor = std::max(floor, next);
  if (++calls_since_prune_ >= 4096) {
    // Floors in the past constrain nothing: the maps hold only hosts with a pending gap.
    calls_since_prune_ = 0;
    const int64_t now = EstimatedRedisNow();
    absl::erase_if(host_floors_, [now](const auto& e) { return e.second <= now; });
    absl::erase_if(ip_floors_, [now](const auto& e) { return e.second <= now; });
  }
}

absl::StatusOr<ClaimResult> RedisPoliteness::Claim(const ClaimRequest& request) {
  return std::move(Exchange({}, std::span<const ClaimRequest>(&request, 1)).claimed.front());
}

absl::StatusOr<ReleaseResult> RedisPoliteness::Release(const ReleaseRequest& request) {
  return std::move(Exchange(std::span<const ReleaseRequest>(&request, 1), {}).released.front());
}

struct RedisPoliteness::Pending {
  std::vector<std::vector<std::string>> commands;
  std::vector<size_t> released;           // per release command: its request's index
  std::vector<absl::Duration> fallback;   // per release command: the delay if Redis is not reached
  std::vector<std::string> tokens;        // per claim: its slot token
};

void RedisPoliteness::AddReleases(std::span<const ReleaseRequest> releases, Pending& pending,
                                  Exchanged& out) {
  out.released.assign(releases.size(), ReleaseResult{});
  for (size_t i = 0; i < releases.size(); ++i) {
    const ReleaseRequest& r = releases[i];
    auto it = held_.find(r.host_key);
    if (it == held_.end() || it->second.empty()) {
      out.released[i] =
          absl::FailedPreconditionError("Release without a granted claim for " + r.host_key);
      continue;
    }
    std::vector<Held>& held = it->second;
    auto match =
        std::find_if(held.begin(), held.end(), [&](const Held& h) { return h.ip == r.ip; });
    if (match == held.end()) match = held.begin();
    Held claim = std::move(*match);
    held.erase(match);
    if (held.empty()) held_.erase(it);
    ++stats_.releases;

    HostFeedback feedback{.crawl_delay = claim.crawl_delay,
                          .last_response_time = r.response_time,
                          .retry_after = r.retry_after,
                          .host_delay = claim.host_delay};
    const double jitter = politeness::JitterUnit(rng_);
    const absl::Duration ok_delay = policy_.NextDelay(feedback, jitter);
    feedback.retry_after.reset();
    const absl::Duration spacing = policy_.NextDelay(feedback, 0);
    std::vector<std::string> keys = Keys(r.host_key, claim.ip);
    std::vector<std::string> c = {"EVALSHA", release_sha_, absl::StrCat(keys.size())};
    c.insert(c.end(), keys.begin(), keys.end());
    c.insert(c.end(), {claim.token, absl::StrCat(Micros(spacing)),
                       absl::StrCat(absl::ToInt64Milliseconds(options_.idle_ttl)),
                       absl::StrCat(Micros(options_.slot_ttl)), absl::StrCat(Micros(ok_delay))});
    absl::Duration least = ok_delay;
    if (r.failed) {
      feedback.retry_after = r.retry_after;
      const int steps = BackoffSteps(policy_.options());
      for (int n = 1; n <= steps; ++n) {
        feedback.consecutive_failures = n;
        const absl::Duration d = policy_.NextDelay(feedback, jitter);
        if (n == 1) least = d;
        c.push_back(absl::StrCat(Micros(d)));
      }
    }
    pending.commands.push_back(std::move(c));
    pending.released.push_back(i);
    pending.fallback.push_back(least);
  }
}

void RedisPoliteness::AddClaims(std::span<const ClaimRequest> claims, Pending& pending) {
  stats_.claims += claims.size();
  for (const ClaimRequest& r : claims) {
    // The gap between request starts before any response told more (the script keeps the
    // larger gap the last response time set).
    const absl::Duration spacing = policy_.NextDelay(
        HostFeedback{.crawl_delay = r.crawl_delay, .host_delay = r.host_delay}, 0);
    pending.tokens.push_back(absl::StrCat(instance_, ":", next_token_++));
    std::vector<std::string> keys = Keys(r.host_key, r.ip);
    std::vector<std::string> c = {"EVALSHA", claim_sha_, absl::StrCat(keys.size())};
    c.insert(c.end(), keys.begin(), keys.end());
    c.insert(c.end(), {pending.tokens.back(), absl::StrCat(Micros(spacing)),
                       absl::StrCat(policy_.options().max_connections_per_host),
                       absl::StrCat(Micros(options_.slot_ttl)),
                       absl::StrCat(absl::ToInt64Milliseconds(options_.idle_ttl)),
                       absl::StrCat(Floor(host_floors_, r.host_key)),
                       absl::StrCat(Floor(ip_floors_, r.ip)),
                       absl::StrCat(Micros(options_.fresh_grace))});
    pending.commands.push_back(std::move(c));
  }
}

RedisPoliteness::Exchanged RedisPoliteness::Exchange(std::span<const ReleaseRequest> releases,
                                                     std::span<const ClaimRequest> claims) {
  Exchanged out;
  Pending pending;
  {
    absl::MutexLock lock(&mu_);
    AddReleases(releases, pending, out);
    AddClaims(claims, pending);
  }
  out.claimed.reserve(claims.size());
  if (pending.commands.empty()) return out;
  const size_t first_claim = pending.released.size();
  absl::StatusOr<std::vector<Reply>> replies = Run(std::move(pending.commands));
  absl::MutexLock lock(&mu_);
  for (size_t j = 0; j < pending.released.size(); ++j) {
    const ReleaseRequest& r = releases[pending.released[j]];
    if (!replies.ok()) {
      // The slot expires in Redis on its own; this process still keeps the host's gap.
      if (offset_known_) {
        const int64_t next = EstimatedRedisNow() + Micros(pending.fallback[j]);
        Remember(host_floors_, r.host_key, next);
        Remember(ip_floors_, r.ip, next);
      }
      out.released[pending.released[j]] = replies.status();
      continue;
    }
    const redisReply& reply = *(*replies)[j];
    const int64_t now = IntAt(reply, 0);
    const int64_t next = IntAt(reply, 1);
    LearnRedisNow(now);
    Remember(host_floors_, r.host_key, next);
    Remember(ip_floors_, r.ip, next);
    out.released[pending.released[j]] =
        ReleaseResult{.wait = absl::Microseconds(std::max<int64_t>(next - now, 0))};
  }
  for (size_t i = 0; i < claims.size(); ++i) {
    if (!replies.ok()) {
      out.claimed.push_back(replies.status());
      continue;
    }
    const redisReply& reply = *(*replies)[first_claim + i];
    const ClaimRequest& r = claims[i];
    LearnRedisNow(IntAt(reply, 2));
    const int64_t next = IntAt(reply, 3);
    Remember(host_floors_, r.host_key, next);
    Remember(ip_floors_, r.ip, next);
    if (IntAt(reply, 0) == 1) {
      ++stats_.granted;
      held_[r.host_key].push_back(
          Held{std::move(pending.tokens[i]), r.ip, r.crawl_delay, r.host_delay});
      out.claimed.push_back(ClaimResult{.granted = true});
    } else {
      out.claimed.push_back(
          ClaimResult{.granted = false, .wait = absl::Microseconds(IntAt(reply, 1))});
    }
  }
  return out;
}

politeness::PolitenessStats RedisPoliteness::Stats() const {
  absl::MutexLock lock(&mu_);
  politeness::PolitenessStats stats = stats_;
  stats.store_up = !down_;
  return stats;
}

}  // namespace crawler::redis
