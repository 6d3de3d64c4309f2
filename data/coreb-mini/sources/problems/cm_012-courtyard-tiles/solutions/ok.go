package main

import (
	"bufio"
	"fmt"
	"os"
)

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func main() {
	reader := bufio.NewReader(os.Stdin)
	writer := bufio.NewWriter(os.Stdout)
	defer writer.Flush()
	var q int
	fmt.Fscan(reader, &q)
	for ; q > 0; q-- {
		var w, h int64
		fmt.Fscan(reader, &w, &h)
		g := gcd(w, h)
		fmt.Fprintln(writer, g, (w/g)*(h/g))
	}
}
