package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	in := bufio.NewReader(os.Stdin)
	var n, capacity int
	fmt.Fscan(in, &n, &capacity)
	best := make([]int64, capacity+1)
	for i := 0; i < n; i++ {
		var w int
		var v int64
		fmt.Fscan(in, &w, &v)
		for c := capacity; c >= w; c-- {
			if best[c-w]+v > best[c] {
				best[c] = best[c-w] + v
			}
		}
	}
	fmt.Println(best[capacity])
}
