// RadixCache: cached KV for token prefixes, kept as a radix tree (the shape of SGLang's
// RadixAttention), with a priority queue of evictable leaves.
//
// Contract:
// - Each edge holds a run of tokens; the path from the root spells a cached prefix. Children
//   are keyed by their first token, so two children never share a first token. Token ids,
//   not text, are the key.
// - match(tokens): the length of the longest cached prefix and the node where it ends (possibly
//   inside that node's edge; the root for length 0). Refreshes the last-use time of every node
//   it walks through.
// - insert(tokens): caches the whole sequence and answers the node where it ends (the root for
//   an empty sequence). Where the sequence leaves an edge, the edge is split by inserting a NEW
//   PARENT holding the shared tokens: the existing node keeps its identity, its tail tokens,
//   its children and its locks, so a handle a request holds stays valid and keeps spelling
//   the same prefix. A split changes no token count; the new suffix adds its length.
// - lock(node) / unlock(node): pin the path from node to the root while a request uses its KV;
//   counts nest. A locked node is never evicted. unlock of a path that is not locked throws
//   std::logic_error and changes nothing.
// - evict(n): removes least-recently-used unlocked LEAVES until at least n tokens are freed or
//   none is left; a parent becomes a leaf (and evictable) once its last child goes, so a shared
//   prefix outlives the branches below it. Answers the tokens freed (may exceed n: leaves go
//   whole; may fall short: everything left is locked). Ties in last use cannot occur: every
//   touch takes a fresh tick.
// - Handles: a Node* from match or insert stays valid while its path is locked; an unlocked
//   handle may dangle after evict.
// - Not thread-safe: the scheduler loop owns it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <vector>

namespace ridge::lab {

class RadixCache {
 public:
  // Read-only to callers.
  struct Node {
    std::vector<int> edge;
    std::map<int, std::unique_ptr<Node>> kids;
    Node* parent = nullptr;
    int ref = 0;
    std::uint64_t used = 0;
    bool queued = false;  // in the evictable set, under key (used, this)
  };

  RadixCache();

  std::pair<std::size_t, Node*> match(const std::vector<int>& tokens);
  Node* insert(const std::vector<int>& tokens);
  void lock(Node* n);
  void unlock(Node* n);
  std::size_t evict(std::size_t tokens);

  std::size_t size() const { return size_; }  // cached tokens
  std::size_t nodes() const;                  // nodes, the root not counted
  std::size_t evictable() const { return leaves_.size(); }
  const Node* root() const { return root_.get(); }

 private:
  Node* split(Node* c, std::size_t k);
  void touch(Node* n);    // a fresh last-use tick, then requeue
  void requeue(Node* n);  // put n in leaves_ iff it is an unlocked non-root leaf

  std::unique_ptr<Node> root_;
  std::uint64_t clock_ = 0;
  std::size_t size_ = 0;
  std::set<std::pair<std::uint64_t, Node*>> leaves_;  // evictable leaves, least recently used first
};

}  // namespace ridge::lab
