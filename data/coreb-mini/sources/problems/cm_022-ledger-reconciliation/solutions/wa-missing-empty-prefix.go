package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	var n int
	var k int64
	fmt.Fscan(in, &n, &k)
	seen := map[int64]int64{}
	var prefix, count int64
	for i := 0; i < n; i++ {
		var x int64
		fmt.Fscan(in, &x)
		prefix += x
		count += seen[prefix-k]
		seen[prefix]++
	}
	fmt.Println(count)
}
