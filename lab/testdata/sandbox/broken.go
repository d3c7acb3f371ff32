// Does not compile: lab/sandbox_test.sh checks the harness shows go build's error.
package main

func main() {
	undefinedFunction()
}
