package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	var n, q int
	fmt.Fscan(in, &n, &q)
	parent := make([]int, n+1)
	size := make([]int, n+1)
	for i := range parent {
		parent[i] = i
		size[i] = 1
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	groups, largest := n, 1
	for i := 0; i < q; i++ {
		var u, v int
		fmt.Fscan(in, &u, &v)
		a, b := find(u), find(v)
		if size[a] < size[b] {
			a, b = b, a
		}
		parent[b] = a
		if a != b {
			size[a] += size[b]
		}
		groups--
		if size[a] > largest {
			largest = size[a]
		}
		fmt.Fprintln(out, groups, largest)
	}
}
