package main

import (
	"bufio"
	"fmt"
	"os"
)

// minShift finds the least rotation with Duval's Lyndon factorization of s+s.
func minShift(s string) int {
	t := s + s
	n := len(s)
	m := len(t)
	i, ans := 0, 0
	for i < n {
		ans = i
		j, k := i+1, i
		for j < m && t[k] <= t[j] {
			if t[k] < t[j] {
				k = i
			} else {
				k++
			}
			j++
		}
		for i <= k {
			i += j - k
		}
	}
	return ans
}

func main() {
	in := bufio.NewReader(os.Stdin)
	var n int
	var s string
	fmt.Fscan(in, &n, &s)
	k := minShift(s)
	fmt.Println(k + 1)
	fmt.Println(s[k:] + s[:k])
}
