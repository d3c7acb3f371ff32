// The kv-versioned build in Go, over the lab protocol (lab/README.md, "The protocol").
//
// Run it through the cases: ridge lab test kv-versioned --impl lab/kv-versioned/ref/versioned_kv.go
// Each key keeps its writes ascending by version; a nil value is a tombstone.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
)

type write struct {
	version uint64
	value   *string
}

type request struct {
	Op      string `json:"op"`
	Key     string `json:"key"`
	Value   string `json:"value"`
	Version uint64 `json:"version"`
	Oldest  uint64 `json:"oldest"`
}

var (
	version, oldest uint64
	data            = map[string][]write{}
)

type reply = map[string]interface{}

// The latest write with version <= v, or nil.
func visible(history []write, v uint64) *write {
	i := sort.Search(len(history), func(i int) bool { return history[i].version > v })
	if i == 0 {
		return nil
	}
	return &history[i-1]
}

func check(v uint64) string {
	if v > version {
		return "future_version" // not "latest": writes still to come would change it
	}
	if v < oldest {
		return "compacted"
	}
	return ""
}

func getAt(key string, v uint64) reply {
	if bad := check(v); bad != "" {
		return reply{"status": bad}
	}
	w := visible(data[key], v)
	if w == nil || w.value == nil {
		return reply{"status": "not_found"}
	}
	return reply{"status": "found", "value": *w.value, "version": w.version}
}

func scanAt(v uint64) reply {
	if bad := check(v); bad != "" {
		return reply{"status": bad}
	}
	keys := []string{}
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	entries := [][2]string{}
	for _, k := range keys {
		if w := visible(data[k], v); w != nil && w.value != nil {
			entries = append(entries, [2]string{k, *w.value})
		}
	}
	return reply{"status": "found", "entries": entries}
}

func compact(to uint64) int {
	if to > version {
		to = version
	}
	if to <= oldest {
		return 0
	}
	oldest = to
	dropped := 0
	for k, history := range data {
		i := sort.Search(len(history), func(i int) bool { return history[i].version > to })
		if i == 0 {
			continue
		}
		dropped += i - 1 // keep the write visible at `to` and everything newer
		history = history[i-1:]
		if len(history) == 1 && history[0].value == nil { // only a tombstone left
			dropped++
			delete(data, k)
			continue
		}
		data[k] = history
	}
	return dropped
}

func handle(req request) reply {
	switch req.Op {
	case "put", "erase":
		version++
		w := write{version: version}
		if req.Op == "put" {
			v := req.Value
			w.value = &v
		}
		data[req.Key] = append(data[req.Key], w)
		return reply{"version": version}
	case "get":
		return getAt(req.Key, version)
	case "get_at":
		return getAt(req.Key, req.Version)
	case "scan_at":
		return scanAt(req.Version)
	case "compact":
		return reply{"dropped": compact(req.Oldest)}
	case "stats":
		n := 0
		for _, h := range data {
			n += len(h)
		}
		return reply{"current_version": version, "oldest_readable": oldest, "history_size": n}
	}
	return reply{"error": "unknown op " + req.Op + "; accepted: put, erase, get, get_at, scan_at, compact, stats"}
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
		var r reply
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			r = reply{"error": err.Error()}
		} else {
			r = handle(req)
		}
		line, _ := json.Marshal(r)
		fmt.Fprintln(out, string(line))
		out.Flush()
	}
}
