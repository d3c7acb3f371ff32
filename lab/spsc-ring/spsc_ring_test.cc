#include "spsc_ring.h"

#include <cstdint>
#include <future>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

#include "common/bounded_wait.h"

namespace ridge::lab {
namespace {

TEST(SpscRing, WrappedIndexBugHoldsExactlyCapacityItems) {
  SpscRing q(4);
  for (std::uint64_t i = 0; i < 4; ++i) EXPECT_TRUE(q.try_push(i));
  EXPECT_FALSE(q.try_push(99));  // full is not empty: no slot wasted, none overwritten
  EXPECT_EQ(q.try_pop(), 0u);
  EXPECT_TRUE(q.try_push(4));  // one pop frees one slot
  EXPECT_FALSE(q.try_push(5));
}

TEST(SpscRing, FifoAcrossTheWrapThenEmpty) {
  SpscRing q(4);
  for (int round = 0; round < 5; ++round) {  // counters pass the capacity several times
    for (std::uint64_t i = 0; i < 3; ++i) ASSERT_TRUE(q.try_push(round * 10 + i));
    for (std::uint64_t i = 0; i < 3; ++i) EXPECT_EQ(q.try_pop(), round * 10 + i);
    EXPECT_FALSE(q.try_pop().has_value());
  }
  SpscRing one(1);
  EXPECT_TRUE(one.try_push(7));
  EXPECT_FALSE(one.try_push(8));
  EXPECT_EQ(one.try_pop(), 7u);
}

TEST(SpscRing, NonPowerOfTwoCapacityIsRefused) {
  EXPECT_THROW(SpscRing(3), std::invalid_argument);  // % 3 on wrapping counters breaks order
  EXPECT_THROW(SpscRing(0), std::invalid_argument);
  EXPECT_THROW(SpscRing(1000), std::invalid_argument);
  EXPECT_NO_THROW(SpscRing(1024));
}

TEST(SpscRing, IndicesOnSeparateCacheLines) {
  SpscRing q(8);
  EXPECT_GE(q.index_distance_bytes(), SpscRing::kLine);  // no false sharing between the two sides
}

// Two threads for real: every item arrives exactly once and in order, with a sum that catches a
// duplicate and a loss that cancel in a count. Under ThreadSanitizer (ctest lab.spsc-ring.tsan)
// the same test checks the happens-before edges; see the header for what neither can prove.
void transfer(std::size_t capacity, std::uint64_t items) {
  SpscRing q(capacity);
  auto producer = std::async(std::launch::async, [&] {
    for (std::uint64_t i = 1; i <= items; ++i) {
      while (!q.try_push(i)) std::this_thread::yield();
    }
  });
  std::uint64_t expected = 1, sum = 0, out_of_order = 0;
  while (expected <= items) {
    if (auto v = q.try_pop()) {
      out_of_order += *v != expected;
      sum += *v;
      ++expected;
    } else {
      std::this_thread::yield();
    }
  }
  expect_ready(producer, "the producer");
  producer.get();
  EXPECT_EQ(out_of_order, 0u);
  EXPECT_EQ(sum, items * (items + 1) / 2);
  EXPECT_FALSE(q.try_pop().has_value());
}

TEST(SpscRingStress, AMillionItemsThrough1024SlotsOnceAndInOrder) { transfer(1024, 1'000'000); }

TEST(SpscRingStress, TwoSlotsWrapOnEveryOtherItem) { transfer(2, 100'000); }

TEST(SpscRing, SecondProducerIsRefused) {
  SpscRing q(8);
  ASSERT_TRUE(q.try_push(1));  // this thread is the producer now
  auto other = std::async(std::launch::async, [&] {
    try {
      q.try_push(2);
      return false;
    } catch (const std::logic_error&) {
      return true;
    }
  });
  expect_ready(other, "the second producer");
  EXPECT_TRUE(other.get());
  EXPECT_EQ(q.try_pop(), 1u);
  EXPECT_FALSE(q.try_pop().has_value());  // the refused push left nothing behind
}

}  // namespace
}  // namespace ridge::lab
