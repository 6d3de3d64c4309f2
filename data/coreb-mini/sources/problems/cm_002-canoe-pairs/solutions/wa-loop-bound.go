package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
)

func main() {
	reader := bufio.NewReaderSize(os.Stdin, 1<<16)
	var n int
	var limit int64
	fmt.Fscan(reader, &n, &limit)
	w := make([]int64, n)
	for k := range w {
		fmt.Fscan(reader, &w[k])
	}
	sort.Slice(w, func(a, b int) bool { return w[a] < w[b] })
	i, j, canoes := 0, n-1, 0
	for i < j {
		if w[i]+w[j] <= limit {
			i++
		}
		j--
		canoes++
	}
	fmt.Println(canoes)
}
