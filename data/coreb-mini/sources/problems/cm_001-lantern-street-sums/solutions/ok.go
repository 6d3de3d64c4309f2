package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	reader := bufio.NewReaderSize(os.Stdin, 1<<16)
	writer := bufio.NewWriter(os.Stdout)
	defer writer.Flush()
	var n, q int
	fmt.Fscan(reader, &n, &q)
	prefix := make([]int64, n+1)
	for i := 1; i <= n; i++ {
		var b int64
		fmt.Fscan(reader, &b)
		prefix[i] = prefix[i-1] + b
	}
	for ; q > 0; q-- {
		var l, r int
		fmt.Fscan(reader, &l, &r)
		fmt.Fprintln(writer, prefix[r]-prefix[l-1])
	}
}
