#include "reshard.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ridge::lab {

Layout::Layout(std::vector<Tensor> tensors, int ranks) : tensors_(std::move(tensors)), ranks_(ranks) {
  if (ranks < 1) throw std::invalid_argument("ranks " + std::to_string(ranks) + ": must be >= 1");
  for (std::size_t t = 0; t < tensors_.size(); ++t)
    if (tensors_[t].elem_bytes < 1)
      throw std::invalid_argument("elem_bytes of tensor " + std::to_string(t) + " " +
                                  std::to_string(tensors_[t].elem_bytes) + ": must be >= 1");
  const std::size_t stride = tensors_.size() + 1;
  offsets_.assign(static_cast<std::size_t>(ranks) * stride, 0);
  for (int r = 0; r < ranks; ++r) {
    std::uint64_t* row = &offsets_[static_cast<std::size_t>(r) * stride];
    for (std::size_t t = 0; t < tensors_.size(); ++t)
      row[t + 1] = row[t] + (hi(t, r) - lo(t, r)) * tensors_[t].elem_bytes;  // this rank's piece
  }
}

std::uint64_t Layout::lo(std::size_t t, int r) const {
  const auto n = static_cast<std::uint64_t>(ranks_), rr = static_cast<std::uint64_t>(r);
  const std::uint64_t base = tensors_[t].count / n, extra = tensors_[t].count % n;
  return rr * base + std::min(rr, extra);  // the first `extra` ranks hold one more
}

std::uint64_t Layout::file_offset(std::size_t t, int r) const {
  return offsets_[static_cast<std::size_t>(r) * (tensors_.size() + 1) + t];
}

std::uint64_t Layout::shard_bytes(int r) const { return file_offset(tensors_.size(), r); }

Plan plan(const Layout& from, const Layout& to) {
  const auto& a = from.tensors();
  const auto& b = to.tensors();
  if (a.size() != b.size())
    throw std::invalid_argument("tensors: " + std::to_string(a.size()) + " in the saved layout, " +
                                std::to_string(b.size()) + " in the new one");
  for (std::size_t t = 0; t < a.size(); ++t)
    if (a[t].count != b[t].count || a[t].elem_bytes != b[t].elem_bytes)
      throw std::invalid_argument("tensor " + std::to_string(t) + ": " + std::to_string(a[t].count) + " x " +
                                  std::to_string(a[t].elem_bytes) + " B saved, " + std::to_string(b[t].count) +
                                  " x " + std::to_string(b[t].elem_bytes) + " B requested");
  Plan reads(static_cast<std::size_t>(to.ranks()));
  for (std::size_t t = 0; t < a.size(); ++t) {
    const std::uint64_t eb = a[t].elem_bytes;
    int r = 0;  // two pointers: old rank r and new rank s walk forward once per tensor
    for (int s = 0; s < to.ranks(); ++s) {
      std::uint64_t at = to.lo(t, s);
      const std::uint64_t end = to.hi(t, s);
      while (at < end) {
        while (from.hi(t, r) <= at) ++r;  // old shards that end before `at`, and empty ones
        const std::uint64_t stop = std::min(end, from.hi(t, r));
        reads[static_cast<std::size_t>(s)].push_back({r, from.file_offset(t, r) + (at - from.lo(t, r)) * eb,
                                                      (stop - at) * eb,
                                                      to.file_offset(t, s) + (at - to.lo(t, s)) * eb});
        at = stop;
      }
    }
  }
  for (auto& rs : reads)
    std::sort(rs.begin(), rs.end(), [](const Read& x, const Read& y) { return x.dest_off < y.dest_off; });
  return reads;
}

Plan coalesce(const Plan& p) {
  Plan out(p.size());
  for (std::size_t s = 0; s < p.size(); ++s) {
    for (const Read& r : p[s]) {
      auto& v = out[s];
      if (!v.empty() && v.back().old_rank == r.old_rank && v.back().file_off + v.back().len == r.file_off &&
          v.back().dest_off + v.back().len == r.dest_off) {
        v.back().len += r.len;
      } else {
        v.push_back(r);
      }
    }
  }
  return out;
}

Files apply(const Plan& p, const Files& old_files, const Layout& from, const Layout& to) {
  if (old_files.size() != static_cast<std::size_t>(from.ranks()))
    throw std::invalid_argument("old files: " + std::to_string(old_files.size()) + " given, the layout has " +
                                std::to_string(from.ranks()) + " ranks");
  for (int r = 0; r < from.ranks(); ++r)
    if (old_files[static_cast<std::size_t>(r)].size() != from.shard_bytes(r))
      throw std::invalid_argument("old file " + std::to_string(r) + ": " +
                                  std::to_string(old_files[static_cast<std::size_t>(r)].size()) + " bytes, expected " +
                                  std::to_string(from.shard_bytes(r)));
  if (p.size() != static_cast<std::size_t>(to.ranks()))
    throw std::invalid_argument("plan: " + std::to_string(p.size()) + " new ranks, the layout has " +
                                std::to_string(to.ranks()));
  Files out;
  for (int s = 0; s < to.ranks(); ++s) {
    std::vector<unsigned char> shard(to.shard_bytes(s), 0);
    for (const Read& rd : p[static_cast<std::size_t>(s)]) {
      const auto& src = old_files.at(static_cast<std::size_t>(rd.old_rank));
      if (rd.file_off + rd.len > src.size() || rd.dest_off + rd.len > shard.size())
        throw std::invalid_argument("read from old rank " + std::to_string(rd.old_rank) + " at " +
                                    std::to_string(rd.file_off) + ": runs past the file or the new shard");
      std::copy_n(src.begin() + static_cast<long>(rd.file_off), rd.len, shard.begin() + static_cast<long>(rd.dest_off));
    }
    out.push_back(std::move(shard));
  }
  return out;
}

}  // namespace ridge::lab
