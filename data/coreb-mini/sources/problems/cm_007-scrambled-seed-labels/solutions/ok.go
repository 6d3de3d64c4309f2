package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	reader := bufio.NewReaderSize(os.Stdin, 1<<20)
	var n int
	fmt.Fscan(reader, &n)
	groups := make(map[[26]uint8]int64)
	for i := 0; i < n; i++ {
		var word string
		fmt.Fscan(reader, &word)
		var key [26]uint8
		for j := 0; j < len(word); j++ {
			key[word[j]-'a']++
		}
		groups[key]++
	}
	var pairs int64
	for _, k := range groups {
		pairs += k * (k - 1) / 2
	}
	fmt.Println(pairs)
}
