package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
)

func main() {
	reader := bufio.NewReaderSize(os.Stdin, 1<<20)
	var n int
	fmt.Fscan(reader, &n)
	tails := make([]int, 0, n)
	for i := 0; i < n; i++ {
		var h int
		fmt.Fscan(reader, &h)
		k := sort.SearchInts(tails, h)
		if k == len(tails) {
			tails = append(tails, h)
		} else {
			tails[k] = h
		}
	}
	fmt.Println(len(tails))
}
