#!/usr/bin/env bash
# Runs the real `ridge calc` binary the way a user and a script would, text and JSON,
# and checks the worked figures and the error paths.
set -u
ridge="$1"
fail=0
check() {  # check NAME EXPECTED-SUBSTRING OUTPUT
  if [[ "$3" != *"$2"* ]]; then echo "FAIL: $1: expected '$2' in:"; echo "$3"; fail=1; else echo "ok: $1"; fi
}

out=$("$ridge" calc --list); check "list" "fit" "$out"
check "list has roofline" "roofline" "$out"

out=$("$ridge" calc fit --help); check "help shows units and k" "Ki is 1,024" "$out"
check "help shows the default" "default 0.10" "$out"

out=$("$ridge" calc fit --model llama-3.1-70b --gpu h100-sxm --gpus 8 --context 32768 --sequences 64)
check "fit text kv/token" "2 × 80 × 8 × 128 × 2 B" "$out"
check "fit text 327,680" "327,680 B" "$out"
check "fit text max seqs" "floor(434.9 GB / 10.74 GB)" "$out"
check "fit text conclusion" "at most 40 sequences" "$out"

json=$("$ridge" calc fit --model llama-3.1-70b --gpu h100-sxm --gpus 8 --context 32768 --sequences 64 --json)
got=$(printf '%s' "$json" | python3 -c 'import json,sys; r=json.load(sys.stdin)["results"]; print(r["kv_bytes_per_token"], r["max_sequences"], r["fits"], r["budget_bytes"])')
check "fit json results" "327680 40 0 576000000000" "$got"

json=$("$ridge" calc roofline --gpu h100-sxm --json)
got=$(printf '%s' "$json" | python3 -c 'import json,sys; print(round(json.load(sys.stdin)["results"]["ridge_flops_per_byte"]))')
check "roofline ridge ~295" "295" "$got"

# --config reads any downloaded config.json.
out=$("$ridge" calc fit --config "$(dirname "$0")/../../data/models/llama-3.1-8b.json" --gpu h100-sxm --context 8192)
check "config path" "131,072 B" "$out"

# The training and planning calculators: a worked figure each, and a layout that does not
# divide names every failure. GPT-3 per layer with TP 8 + SP + selective recompute:
# 2,048 × 1 × 12,288 × 34 ÷ 8 = 106,954,752 B.
json=$("$ridge" calc activation-memory --hidden 12288 --layers 96 --heads 96 --seq 2048 --tp 8 --sequence-parallel on --recompute selective --json)
got=$(printf '%s' "$json" | python3 -c 'import json,sys; print(int(json.load(sys.stdin)["results"]["activation_bytes_per_layer"]))')
check "activation-memory json" "106954752" "$got"
out=$("$ridge" calc cluster-power --gpu h100-sxm --power-budget 1MW)
check "cluster-power budget" "75 × 8" "$out"
err=$("$ridge" calc layout --model llama-3.1-70b --gpus 1000 --tp 3 --global-batch 512 --seq 8192 2>&1); rc=$?
check "layout exit" "2" "$rc"
check "layout names gpus" "--gpus: '1000' is not divisible by tp × pp × cp = 3" "$err"
check "layout names tp" "--tp: '3' does not divide the 64 attention heads" "$err"

# Errors: exit 2, message names the field, the value and what is accepted.
err=$("$ridge" calc fit --model llama-3.1-70b --gpu h1000 --context 8192 2>&1); rc=$?
check "unknown gpu exit" "2" "$rc"
check "unknown gpu lists ids" "--gpu: 'h1000' is not a known GPU; accepted: a100-80gb-sxm" "$err"
err=$("$ridge" calc fit --model llama-3.1-8b --gpu a100-80gb-sxm --context 8192 --weights-dtype fp8 2>&1)
check "fp8 on a100" "has no hardware support on a100-80gb-sxm" "$err"
err=$("$ridge" calc fit --model llama-3.1-8b --gpu h100-sxm --context -5 2>&1)
check "negative context" "--context: '-5' is out of range" "$err"
err=$("$ridge" calc fit --model llama-3.1-8b --gpu h100-sxm --context nan 2>&1)
check "nan context" "--context: 'nan' is not a finite number" "$err"
err=$("$ridge" calc fit --model llama-3.1-8b --gpu h100-sxm --context 8192 --colour blue 2>&1)
check "unknown flag" "--colour: 'blue' is not a parameter of this calculator" "$err"
err=$("$ridge" calc fit --config /nonexistent/config.json --gpu h100-sxm --context 8 2>&1)
check "missing config file" "'/nonexistent/config.json' is not a readable file" "$err"
err=$("$ridge" calc nosuch 2>&1); rc=$?
check "unknown calculator" "accepted: fit" "$err"
check "unknown calculator exit" "2" "$rc"

# Issue 29: a hybrid model's cache is a sum over its layer kinds, with a fixed state; a config
# of an unknown family carrying a mixer ridge does not model is refused by name, exit 2.
out=$("$ridge" calc fit --model qwen3-next-80b-a3b --gpu h200 --gpus 4 --context 131072)
check "hybrid fit names the layer kinds" "36 Gated DeltaNet layers: no KV" "$out"
check "hybrid fit state step" "Recurrent state per sequence" "$out"
check "hybrid fit cache" "3.26 GB" "$out"
unknown=$(mktemp)
printf '%s' '{"model_type": "retnet_lm", "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 1000, "layer_types": ["retention", "full_attention"]}' > "$unknown"
err=$("$ridge" calc fit --config "$unknown" --gpu h100-sxm --context 8 2>&1); rc=$?
rm -f "$unknown"
check "unknown mixer named" 'config.json:layer_types[0] = "retention" is a layer type ridge does not model' "$err"
check "unknown mixer exit" "2" "$rc"

if [ $fail -ne 0 ]; then exit 1; fi
echo "cli: all passed"
