// The intervals build in Go, over the lab protocol (lab/README.md, "The protocol").
//
// Run it through the cases: ridge lab test intervals --impl lab/intervals/ref/intervals.go
// Intervals are half-open [start, end): touching intervals of one rank merge, touching
// intervals of two ranks share no idle time.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
)

type interval [2]int64

type request struct {
	Op        string       `json:"op"`
	Intervals []interval   `json:"intervals"`
	Ranks     [][]interval `json:"ranks"`
	K         int          `json:"k"`
}

func merge(in []interval) ([]interval, int) {
	kept := []interval{}
	for _, i := range in {
		if i[0] < i[1] {
			kept = append(kept, i)
		}
	}
	sort.Slice(kept, func(a, b int) bool { return kept[a][0] < kept[b][0] })
	out := []interval{}
	for _, i := range kept {
		if n := len(out); n > 0 && i[0] <= out[n-1][1] { // overlaps or touches
			if i[1] > out[n-1][1] {
				out[n-1][1] = i[1]
			}
		} else {
			out = append(out, i)
		}
	}
	return out, len(in) - len(kept)
}

type event struct {
	t     int64
	delta int
}

func idleAtLeast(ranks [][]interval, k int) []interval {
	out := []interval{}
	if k == 0 || k > len(ranks) {
		return out
	}
	events := []event{}
	for _, rank := range ranks {
		merged, _ := merge(rank) // merge first, or a rank counts twice
		for _, i := range merged {
			events = append(events, event{i[0], +1}, event{i[1], -1})
		}
	}
	sort.Slice(events, func(a, b int) bool { // ends before starts at equal times
		if events[a].t != events[b].t {
			return events[a].t < events[b].t
		}
		return events[a].delta < events[b].delta
	})
	idle, open := 0, false
	var opened int64
	for _, e := range events {
		idle += e.delta
		if idle >= k && !open {
			open, opened = true, e.t
			if n := len(out); n > 0 && out[n-1][1] == e.t { // closed at this instant: goes on
				opened = out[n-1][0]
				out = out[:n-1]
			}
		} else if idle < k && open {
			open = false
			if e.t > opened {
				out = append(out, interval{opened, e.t})
			}
		}
	}
	return out
}

func handle(req request) map[string]interface{} {
	switch req.Op {
	case "merge":
		merged, dropped := merge(req.Intervals)
		return map[string]interface{}{"intervals": merged, "dropped": dropped}
	case "idle_at_least":
		return map[string]interface{}{"intervals": idleAtLeast(req.Ranks, req.K)}
	case "all_idle":
		return map[string]interface{}{"intervals": idleAtLeast(req.Ranks, len(req.Ranks))}
	case "any_idle":
		return map[string]interface{}{"intervals": idleAtLeast(req.Ranks, 1)}
	case "total":
		var sum int64
		for _, i := range req.Intervals {
			sum += i[1] - i[0]
		}
		return map[string]interface{}{"total_us": sum}
	}
	return map[string]interface{}{"error": "unknown op " + req.Op + "; accepted: merge, idle_at_least, all_idle, any_idle, total"}
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
