#include "radix_cache.h"

#include <stdexcept>

namespace ridge::lab {

namespace {

std::size_t count(const RadixCache::Node* n) {
  std::size_t k = 1;
  for (const auto& [tok, c] : n->kids) k += count(c.get());
  return k;
}

// Tokens of `edge` that agree with t[i...].
std::size_t common(const std::vector<int>& edge, const std::vector<int>& t, std::size_t i) {
  std::size_t k = 0;
  while (k < edge.size() && i + k < t.size() && edge[k] == t[i + k]) ++k;
  return k;
}

}  // namespace

RadixCache::RadixCache() : root_(std::make_unique<Node>()) {}

std::size_t RadixCache::nodes() const { return count(root_.get()) - 1; }

void RadixCache::requeue(Node* n) {
  if (n->queued) {
    leaves_.erase({n->used, n});
    n->queued = false;
  }
  if (n != root_.get() && n->kids.empty() && n->ref == 0) {
    leaves_.insert({n->used, n});
    n->queued = true;
  }
}

void RadixCache::touch(Node* n) {
  if (n->queued) {
    leaves_.erase({n->used, n});
    n->queued = false;
  }
  n->used = ++clock_;
  requeue(n);
}

std::pair<std::size_t, RadixCache::Node*> RadixCache::match(const std::vector<int>& t) {
  Node* n = root_.get();
  std::size_t i = 0;
  touch(n);
  while (i < t.size()) {
    const auto it = n->kids.find(t[i]);
    if (it == n->kids.end()) break;
    Node* c = it->second.get();
    const std::size_t k = common(c->edge, t, i);
    touch(c);
    i += k;
    n = c;
    if (k < c->edge.size()) break;  // the match ends inside this edge
  }
  return {i, n};
}

// Splits c after k tokens by inserting a new parent above it. c keeps its identity, its tail
// tokens, its children and its locks, so handles requests hold to c stay valid.
RadixCache::Node* RadixCache::split(Node* c, std::size_t k) {
  Node* p = c->parent;
  auto head = std::make_unique<Node>();
  head->edge.assign(c->edge.begin(), c->edge.begin() + static_cast<std::ptrdiff_t>(k));
  head->parent = p;
  head->ref = c->ref;  // every lock through c passes through the new parent too
  head->used = c->used;
  Node* raw = head.get();
  auto owned = std::move(p->kids[c->edge.front()]);
  c->edge.erase(c->edge.begin(), c->edge.begin() + static_cast<std::ptrdiff_t>(k));
  c->parent = raw;
  raw->kids[c->edge.front()] = std::move(owned);
  p->kids[raw->edge.front()] = std::move(head);
  return raw;
}

RadixCache::Node* RadixCache::insert(const std::vector<int>& t) {
  Node* n = root_.get();
  std::size_t i = 0;
  while (i < t.size()) {
    const auto it = n->kids.find(t[i]);
    if (it == n->kids.end()) {  // a new leaf for the rest
      auto leaf = std::make_unique<Node>();
      leaf->edge.assign(t.begin() + static_cast<std::ptrdiff_t>(i), t.end());
      leaf->parent = n;
      size_ += leaf->edge.size();
      Node* raw = leaf.get();
      n->kids[t[i]] = std::move(leaf);
      requeue(n);  // n has a child now: no longer a leaf
      touch(raw);
      return raw;
    }
    Node* c = it->second.get();
    const std::size_t k = common(c->edge, t, i);
    if (k < c->edge.size()) c = split(c, k);  // a new parent holds the k shared tokens
    touch(c);
    i += k;
    n = c;
  }
  return n;
}

void RadixCache::lock(Node* n) {
  for (; n != nullptr; n = n->parent) {
    ++n->ref;
    requeue(n);
  }
}

void RadixCache::unlock(Node* n) {
  for (Node* m = n; m != nullptr; m = m->parent) {
    if (m->ref <= 0) throw std::logic_error("RadixCache::unlock: the path is not locked");
  }
  for (; n != nullptr; n = n->parent) {
    --n->ref;
    requeue(n);
  }
}

std::size_t RadixCache::evict(std::size_t want) {
  std::size_t freed = 0;
  while (freed < want && !leaves_.empty()) {
    Node* victim = leaves_.begin()->second;  // the least recently used unlocked leaf
    leaves_.erase(leaves_.begin());
    Node* parent = victim->parent;
    freed += victim->edge.size();
    size_ -= victim->edge.size();
    parent->kids.erase(victim->edge.front());  // destroys victim
    requeue(parent);                           // it may be a leaf now
  }
  return freed;
}

}  // namespace ridge::lab
