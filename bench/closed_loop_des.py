#!/usr/bin/env python3
"""Discrete-event runs of the serving ledger's closed loops (issue 31, perf9s, 2026-12-07).

A one-off check of two mechanisms the steady closed-loop model (src/calc/serving_model.h) leaves out,
kept so that bench/README.md's perf9s figures can be reproduced: python3 bench/closed_loop_des.py.
The step and prefill costs are transcribed from `ridge calc serve-rate`'s derivation for each
deployment as the model stood before perf9s (the 70 us per-layer cost, no MoE-layer term); they are
not recomputed here.

1. NIM 1.8, Llama 3.3 70B fp8 on 2 H100 (TensorRT-LLM in-flight batching), 25 clients, fixed lengths
   (genai-perf sends min_tokens = max_tokens): each iteration holds the running decodes and waiting
   prompts, first come first served, up to a token budget (max_num_tokens, decode tokens counted),
   a prompt chunked across iterations when it does not fit; an iteration costs the decode step at its
   batch plus the prompt tokens at the prefill's per-token cost. Two starts: the clients spread over
   a cycle, or all sent at once.
2. dstack's SGLang PD runs (gpt-oss-120b, TP-2 servers on 8 H200): vllm bench serve's 500 prompts,
   the first C sent at once, round robin over the prefill and decode servers; a prefill server batches
   waiting prompts up to a token budget; then the transfer, the handoff (105 ms + 2 decode steps) and
   the decode steps at the decode server's batch.
"""
import heapq


def nim_loop(clients, isl, osl, step, per_token, fixed, budget, start_spread, turnaround=0.0, cycles=12, skip=3):
    """Mean TTFT (s) of the requests after the first `skip` cycles."""
    t, waiting, running, arrivals = 0.0, [], [], []
    for c in range(clients):
        heapq.heappush(arrivals, (c * start_spread / clients, c))
    ttft, done, sent, total = [], 0, clients, clients * cycles
    while done < total:
        while arrivals and arrivals[0][0] <= t + 1e-12:
            a, i = heapq.heappop(arrivals)
            waiting.append([a, isl, i])
        if not waiting and not running:
            t = arrivals[0][0]
            continue
        room, tokens, chosen = budget - len(running), 0, []
        for w in waiting:
            if room <= 0:
                break
            take = min(w[1], room)
            tokens += take
            room -= take
            chosen.append((w, take))
        t += (step(len(running)) if running else fixed) + per_token * tokens
        still = []
        for r in running:
            r[1] -= 1
            if r[1] > 0:
                still.append(r)
                continue
            done += 1
            if sent < total:
                heapq.heappush(arrivals, (t + turnaround, sent))
                sent += 1
        running = still
        for w, take in chosen:
            w[1] -= take
            if w[1] <= 0:
                waiting.remove(w)
                ttft.append((w[2], t - w[0]))
                running.append([w[2], osl - 1])
    kept = [x for i, x in ttft if i >= clients * skip]
    return sum(kept) / len(kept)


def touched(experts, k, tokens):
    return experts * (1 - (1 - k / experts) ** tokens) if tokens > 0 else 0


def pd_loop(prefill, decode, clients, isl, osl, budget, n=500, pfix=3.24e-3, ptok=12.03e-6, handoff=0.105, steps=2):
    """Mean TTFT (s) over all n requests of vllm bench serve (request rate inf, max concurrency C)."""
    def step(b):  # gpt-oss-120b TP 2 on H200, serve-rate's decode step terms before perf9s
        kv = 40.7e6 * (isl + osl / 2) / (2046 + 33.5)
        return 0.49e-3 + 238e6 * touched(128, 4, b) / 3.12e12 + b * kv / 4.32e12 + 3.37e-3
    events, seq = [], [0]

    def push(t, kind, data):
        heapq.heappush(events, (t, seq[0], kind, data))
        seq[0] += 1
    pq, pbusy = [[] for _ in range(prefill)], [False] * prefill
    dq, drun, dbusy = [[] for _ in range(decode)], [[] for _ in range(decode)], [False] * decode
    state = {"sent": 0}
    ttft = []

    def kick_prefill(i, t):
        if pbusy[i] or not pq[i]:
            return
        batch, tokens = [], 0
        while pq[i] and (not batch or tokens + isl <= budget):
            batch.append(pq[i].pop(0))
            tokens += isl
        pbusy[i] = True
        push(t + pfix + ptok * tokens, "prefilled", (i, batch))

    def send(t):
        if state["sent"] >= n:
            return
        k = state["sent"]
        state["sent"] += 1
        r = {"arrival": t, "p": k % prefill, "d": k % decode}
        pq[r["p"]].append(r)
        kick_prefill(r["p"], t)

    def kick_decode(j, t):
        if dbusy[j]:
            return
        for r in dq[j]:
            r["left"] = osl - 1
            drun[j].append(r)
        dq[j] = []
        if drun[j]:
            dbusy[j] = True
            push(t + step(len(drun[j])), "stepped", j)
    for _ in range(clients):
        send(0.0)
    while events:
        t, _, kind, data = heapq.heappop(events)
        if kind == "prefilled":
            i, batch = data
            pbusy[i] = False
            for r in batch:
                push(t + 0.0008 + handoff, "landed", r)
            kick_prefill(i, t)
        elif kind == "landed":
            j = data["d"]
            ttft.append(t + steps * step(max(len(drun[j]), 1)) - data["arrival"])
            dq[j].append(data)
            kick_decode(j, t)
        else:
            j = data
            dbusy[j] = False
            still = []
            for r in drun[j]:
                r["left"] -= 1
                if r["left"] > 0:
                    still.append(r)
                else:
                    send(t)
            drun[j] = still
            kick_decode(j, t)
    return sum(ttft) / len(ttft)


def main():
    print("NIM 1.8 Llama 3.3 70B, 2 H100, 25 clients: mean TTFT (ms)")
    nim = {(200, 200): 139.0, (500, 2000): 147.6, (1000, 1000): 250.5, (5000, 500): 688.7}
    for (isl, osl), measured in nim.items():
        per_seq = 0.041e-3 * (isl + osl / 2) / 1500
        step = lambda b, p=per_seq: 18.9e-3 + p * b  # noqa: E731
        cycle = osl * 0.02
        cells = [("spread", 8192, cycle, 0.0), ("at once, 2048", 2048, 0.0, 0.0), ("at once, 8192", 8192, 0.0, 0.0),
                 ("at once, 2048, 3 ms turnaround", 2048, 0.0, 0.003)]
        out = [f"{name} {1e3 * nim_loop(25, isl, osl, step, 87e-6, 7.2e-3, b, s, d):.1f}" for name, b, s, d in cells]
        print(f"  {isl}/{osl}: " + "; ".join(out) + f"; measured {measured}")
    print("dstack SGLang PD gpt-oss-120b, 500 prompts, the first C at once: mean TTFT (ms), error")
    rows = [(1, 3, 128, 2046, 67, 3961.0), (2, 2, 128, 2046, 67, 2135.0), (3, 1, 128, 2046, 67, 1259.0),
            (1, 3, 128, 128, 682, 386.0), (2, 2, 128, 128, 682, 1020.0), (3, 1, 128, 128, 682, 1051.0),
            (1, 3, 32, 128, 682, 131.6), (2, 2, 32, 128, 682, 102.5), (3, 1, 32, 128, 682, 99.85),
            (1, 3, 32, 2046, 732, 138.1), (2, 2, 32, 2046, 732, 113.8), (3, 1, 32, 2046, 732, 136.9)]
    for p, d, c, isl, osl, measured in rows:
        cells = []
        for budget in (2046, 8192, 16384):
            x = 1e3 * pd_loop(p, d, c, isl, osl, budget)
            cells.append(f"budget {budget}: {x:.0f} ({100 * (x / measured - 1):+.1f}%)")
        print(f"  {p}P{d}D c{c} {isl}/{osl}: " + "; ".join(cells) + f"; measured {measured}")


if __name__ == "__main__":
    main()
