// The retry build in Go, over the lab protocol (lab/README.md, "The protocol").
//
// Run it through the cases: ridge lab test retry --impl lab/retry/ref/retry.go
// Time is virtual (attempts and sleeps advance it); draw i is the request's draws[i],
// clamped to the bound asked for, or the bound itself once the list ends.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

type step struct {
	Outcome    string `json:"outcome"`
	DurationNs int64  `json:"duration_ns"`
}

type request struct {
	Op          string   `json:"op"`
	BaseNs      int64    `json:"base_ns"`
	CapNs       int64    `json:"cap_ns"`
	Retry       int      `json:"retry"`
	MaxAttempts *int     `json:"max_attempts"`
	DeadlineNs  *int64   `json:"deadline_ns"`
	StartNs     *int64   `json:"start_ns"`
	Attempts    []step   `json:"attempts"`
	Draws       []uint64 `json:"draws"`
}

// min(cap, base * 2^retry), doubling step by step so it saturates instead of overflowing.
func bound(base, cap int64, retry int) int64 {
	b := base
	for i := 0; i < retry && b < cap; i++ {
		if b > cap/2 {
			b = cap
		} else {
			b *= 2
		}
	}
	if b > cap {
		return cap
	}
	return b
}

func run(req request) map[string]interface{} {
	maxAttempts, now, deadline := 10, int64(1_000_000_000), int64(30_000_000_000)
	if req.MaxAttempts != nil {
		maxAttempts = *req.MaxAttempts
	}
	if req.StartNs != nil {
		now = *req.StartNs
	}
	if req.DeadlineNs != nil {
		deadline = *req.DeadlineNs
	}
	deadlineAt := now + deadline
	sleeps, bounds, remaining := []int64{}, []int64{}, []int64{}
	attempts := 0
	reply := func(status string) map[string]interface{} {
		return map[string]interface{}{"status": status, "attempts": attempts, "sleeps_ns": sleeps,
			"bounds_ns": bounds, "remaining_ns": remaining, "end_ns": now}
	}
	for retry := 0; ; retry++ {
		left := deadlineAt - now
		if left <= 0 {
			return reply("deadline_exceeded")
		}
		attempts++
		remaining = append(remaining, left)
		outcome := "retryable"
		if attempts <= len(req.Attempts) {
			s := req.Attempts[attempts-1]
			now += s.DurationNs
			outcome = s.Outcome
		}
		switch outcome {
		case "success":
			return reply("succeeded")
		case "permanent":
			return reply("permanent_failure")
		}
		if attempts >= maxAttempts {
			return reply("attempts_exhausted")
		}
		b := bound(req.BaseNs, req.CapNs, retry)
		bounds = append(bounds, b)
		sleep := b
		if i := len(bounds) - 1; i < len(req.Draws) && req.Draws[i] < uint64(b) {
			sleep = int64(req.Draws[i])
		}
		if now+sleep >= deadlineAt { // no attempt could start after this sleep
			return reply("deadline_exceeded")
		}
		now += sleep
		sleeps = append(sleeps, sleep)
	}
}

func handle(req request) map[string]interface{} {
	switch req.Op {
	case "bound":
		return map[string]interface{}{"bound_ns": bound(req.BaseNs, req.CapNs, req.Retry)}
	case "run":
		return run(req)
	}
	return map[string]interface{}{"error": "unknown op " + req.Op + "; accepted: bound, run"}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		if len(in.Bytes()) == 0 {
			continue
		}
		var req request
		var reply map[string]interface{}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			reply = map[string]interface{}{"error": err.Error()}
		} else {
			reply = handle(req)
		}
		line, _ := json.Marshal(reply)
		fmt.Fprintln(out, string(line))
		out.Flush()
	}
}
