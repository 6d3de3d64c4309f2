package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	reader := bufio.NewReaderSize(os.Stdin, 1<<20)
	var n int
	var chant string
	fmt.Fscan(reader, &n, &chant)
	stack := []int{}
	best, start := 0, 0
	for i := 0; i < len(chant); i++ {
		if chant[i] == '(' {
			stack = append(stack, i)
			continue
		}
		if len(stack) == 0 {
			continue
		}
		stack = stack[:len(stack)-1]
		base := start - 1
		if len(stack) > 0 {
			base = stack[len(stack)-1]
		}
		if i-base > best {
			best = i - base
		}
	}
	fmt.Println(best)
}
