// The hash-ring build in Go, over the lab protocol (lab/README.md, "The protocol").
//
// Run it through the cases: ridge lab test hash-ring --impl lab/hash-ring/ref/hash_ring.go
// uint64 arithmetic wraps as the contract's 64-bit hash needs.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
)

func fnv1a64(data []byte) uint64 {
	h := uint64(0xcbf29ce484222325)
	for _, c := range data {
		h ^= uint64(c)
		h *= 0x100000001b3
	}
	return h
}

func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

func stableHash64(s string) uint64 { return mix64(fnv1a64([]byte(s))) }

type point struct {
	hash    uint64
	replica string
}

type ring struct {
	per      int
	replicas map[string]bool
	points   []point // ascending; equal hashes ordered by replica name
}

func (r *ring) rebuild() {
	r.points = r.points[:0]
	for name := range r.replicas {
		for i := 0; i < r.per; i++ {
			r.points = append(r.points, point{stableHash64(name + "#" + strconv.Itoa(i)), name})
		}
	}
	sort.Slice(r.points, func(a, b int) bool {
		if r.points[a].hash != r.points[b].hash {
			return r.points[a].hash < r.points[b].hash
		}
		return r.points[a].replica < r.points[b].replica
	})
}

func (r *ring) ownerOfHash(h uint64) interface{} {
	if len(r.points) == 0 {
		return nil
	}
	i := sort.Search(len(r.points), func(i int) bool { return r.points[i].hash >= h })
	if i == len(r.points) {
		i = 0 // past the largest point: wrap around
	}
	return r.points[i].replica
}

type request struct {
	Op      string   `json:"op"`
	Bytes   string   `json:"bytes"`
	X       uint64   `json:"x"`
	Points  int      `json:"points_per_replica"`
	Replica string   `json:"replica"`
	Key     string   `json:"key"`
	Keys    []string `json:"keys"`
	Hash    uint64   `json:"hash"`
}

type reply = map[string]interface{}

var hr *ring

func handle(req request) reply {
	switch req.Op {
	case "hash":
		f := fnv1a64([]byte(req.Bytes))
		return reply{"fnv1a64": f, "stable": mix64(f)}
	case "mix64":
		return reply{"mix64": mix64(req.X)}
	case "new":
		if req.Points < 1 {
			return reply{"error": "points_per_replica must be >= 1"}
		}
		hr = &ring{per: req.Points, replicas: map[string]bool{}}
		return reply{"ok": true}
	}
	if hr == nil {
		return reply{"error": "no ring yet: send op new first"}
	}
	switch req.Op {
	case "add":
		if hr.replicas[req.Replica] {
			return reply{"added": false}
		}
		hr.replicas[req.Replica] = true
		hr.rebuild()
		return reply{"added": true}
	case "remove":
		if !hr.replicas[req.Replica] {
			return reply{"removed": false}
		}
		delete(hr.replicas, req.Replica)
		hr.rebuild()
		return reply{"removed": true}
	case "owner":
		return reply{"owner": hr.ownerOfHash(stableHash64(req.Key))}
	case "owners":
		owners := []interface{}{}
		for _, k := range req.Keys {
			owners = append(owners, hr.ownerOfHash(stableHash64(k)))
		}
		return reply{"owners": owners}
	case "owner_of_hash":
		return reply{"owner": hr.ownerOfHash(req.Hash)}
	case "stats":
		return reply{"replicas": len(hr.replicas), "points": len(hr.points)}
	case "points":
		points := [][]interface{}{}
		for _, p := range hr.points {
			points = append(points, []interface{}{p.hash, p.replica})
		}
		return reply{"points": points}
	}
	return reply{"error": "unknown op " + req.Op + "; accepted: hash, mix64, new, add, remove, owner, owners, owner_of_hash, stats, points"}
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
