package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	var n, k int
	fmt.Fscan(in, &n, &k)
	s := make([]int64, n)
	for i := range s {
		fmt.Fscan(in, &s[i])
	}
	count := map[int64]int{}
	left, bestLen, bestStart := 0, 0, 0
	for right := 0; right < n; right++ {
		count[s[right]]++
		for len(count) > k {
			count[s[left]]--
			if count[s[left]] == 0 {
				delete(count, s[left])
			}
			left++
		}
		if right-left+1 > bestLen {
			bestLen = right - left + 1
			bestStart = left
		}
	}
	fmt.Println(bestLen, bestStart+1)
}
