// The rate-limiter build in Go, over the lab protocol (lab/README.md, "The protocol").
//
// Run it through the cases: ridge lab test rate-limiter --impl lab/rate-limiter/ref/token_bucket.go
// Tokens are integer units of 1e-9 token; a rate of r tokens/s is r units per nanosecond.
// The clock is each request's now_ns.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

const unitsPerToken = 1_000_000_000

type request struct {
	Op       string `json:"op"`
	NowNs    int64  `json:"now_ns"`
	Capacity int64  `json:"capacity"`
	Rate     int64  `json:"rate"`
	Cost     int64  `json:"cost"`
}

type bucket struct {
	capacity, rate, units, last int64
}

func (b *bucket) unitsAt(t int64) int64 {
	if t <= b.last {
		return b.units // a clock that did not advance (or went back) adds nothing
	}
	elapsed, room := t-b.last, b.capacity-b.units
	// Compare before multiplying: elapsed * rate overflows int64 after a long idle.
	if elapsed >= (room+b.rate-1)/b.rate {
		return b.capacity
	}
	return b.units + elapsed*b.rate
}

func (b *bucket) acquire(cost, now int64) (string, int64) {
	if cost < 1 {
		return "invalid_cost", 0
	}
	if cost > b.capacity/unitsPerToken {
		return "never_fits", 0
	}
	b.units = b.unitsAt(now)
	if now > b.last {
		b.last = now
	}
	need := cost * unitsPerToken
	if b.units >= need {
		b.units -= need
		return "allowed", 0
	}
	deficit := need - b.units
	return "denied", (deficit + b.rate - 1) / b.rate // rounded up
}

var tb *bucket

func handle(req request) map[string]interface{} {
	switch req.Op {
	case "new":
		c := req.Capacity * unitsPerToken
		tb = &bucket{capacity: c, rate: req.Rate, units: c, last: req.NowNs}
		return map[string]interface{}{"ok": true}
	case "acquire", "available":
		if tb == nil {
			return map[string]interface{}{"error": "no bucket yet: send op new first"}
		}
		if req.Op == "available" {
			return map[string]interface{}{"units": tb.unitsAt(req.NowNs)}
		}
		verdict, wait := tb.acquire(req.Cost, req.NowNs)
		return map[string]interface{}{"verdict": verdict, "retry_after_ns": wait}
	}
	return map[string]interface{}{"error": "unknown op " + req.Op + "; accepted: new, acquire, available"}
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
