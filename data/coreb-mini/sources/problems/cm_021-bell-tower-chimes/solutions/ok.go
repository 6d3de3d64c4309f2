package main

import (
	"fmt"
	"math/bits"
)

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func main() {
	var m int
	var lo, hi int64
	fmt.Scan(&m, &lo, &hi)
	a := make([]int64, m)
	for i := range a {
		fmt.Scan(&a[i])
	}
	var total int64
	for mask := 1; mask < 1<<m; mask++ {
		l := int64(1)
		ok := true
		for i := 0; i < m; i++ {
			if mask>>i&1 == 0 {
				continue
			}
			step := l / gcd(l, a[i])
			if step > hi/a[i] {
				ok = false
				break
			}
			l = step * a[i]
		}
		if !ok {
			continue
		}
		cnt := hi/l - (lo-1)/l
		if bits.OnesCount(uint(mask))%2 == 1 {
			total += cnt
		} else {
			total -= cnt
		}
	}
	fmt.Println(total)
}
