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
	stack := []int{-1}
	best := 0
	for i := 0; i < len(chant); i++ {
		if chant[i] == '(' {
			stack = append(stack, i)
			continue
		}
		stack = stack[:len(stack)-1]
		if len(stack) == 0 {
			stack = append(stack, i)
		} else if i-stack[len(stack)-1] > best {
			best = i - stack[len(stack)-1]
		}
	}
	fmt.Println(best)
}
