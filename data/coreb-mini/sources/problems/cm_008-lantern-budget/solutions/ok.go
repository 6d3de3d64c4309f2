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
	var skip, take int64
	for i := 0; i < n; i++ {
		var b int64
		fmt.Fscan(reader, &b)
		best := skip
		if take > best {
			best = take
		}
		skip, take = best, skip+b
	}
	if take > skip {
		skip = take
	}
	fmt.Println(skip)
}
