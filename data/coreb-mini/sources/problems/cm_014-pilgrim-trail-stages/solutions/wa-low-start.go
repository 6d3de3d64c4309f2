package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	in := bufio.NewReader(os.Stdin)
	var n, k int
	fmt.Fscan(in, &n, &k)
	a := make([]int64, n)
	var hi int64
	for i := range a {
		fmt.Fscan(in, &a[i])
		hi += a[i]
	}
	feasible := func(limit int64) bool {
		days, cur := 1, int64(0)
		for _, x := range a {
			if cur+x > limit {
				days++
				cur = x
			} else {
				cur += x
			}
		}
		return days <= k
	}
	lo := int64(1)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if feasible(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	fmt.Println(lo)
}
