// Never answers, in Go: the time limit kills a compiled program too (lab/sandbox_test.sh).
package main

func main() {
	for {
	}
}
