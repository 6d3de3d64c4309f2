package main

import (
	"bufio"
	"fmt"
	"os"
)

const mod = 1000000007

func main() {
	reader := bufio.NewReaderSize(os.Stdin, 1<<20)
	var rows, cols int
	fmt.Fscan(reader, &rows, &cols)
	ways := make([]int64, cols)
	for r := 0; r < rows; r++ {
		var line string
		fmt.Fscan(reader, &line)
		for c := 0; c < cols; c++ {
			switch {
			case line[c] == '#':
				ways[c] = 0
			case r == 0 && c == 0:
				ways[c] = 1
			case c > 0:
				ways[c] = (ways[c] + ways[c-1]) % mod
			}
		}
	}
	fmt.Println(ways[cols-1])
}
