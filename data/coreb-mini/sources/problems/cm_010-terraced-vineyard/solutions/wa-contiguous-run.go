package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	reader := bufio.NewReaderSize(os.Stdin, 1<<20)
	var n int
	fmt.Fscan(reader, &n)
	best, run, prev := 0, 0, -1
	for i := 0; i < n; i++ {
		var h int
		fmt.Fscan(reader, &h)
		if h > prev {
			run++
		} else {
			run = 1
		}
		if run > best {
			best = run
		}
		prev = h
	}
	fmt.Println(best)
}
