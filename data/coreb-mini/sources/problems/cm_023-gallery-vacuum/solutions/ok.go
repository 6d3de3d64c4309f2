package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	var r, c int
	fmt.Fscan(in, &r, &c)
	grid := make([]string, r)
	row, col := 0, 0
	for i := range grid {
		fmt.Fscan(in, &grid[i])
		for j := 0; j < c; j++ {
			if grid[i][j] == 'S' {
				row, col = i, j
			}
		}
	}
	var cmds string
	fmt.Fscan(in, &cmds)
	dr := []int{-1, 0, 1, 0}
	dc := []int{0, 1, 0, -1}
	names := "NESW"
	facing := 0
	seen := map[[2]int]bool{{row, col}: true}
	for _, ch := range cmds {
		switch ch {
		case 'L':
			facing = (facing + 3) % 4
		case 'R':
			facing = (facing + 1) % 4
		case 'F':
			nr, nc := row+dr[facing], col+dc[facing]
			if nr >= 0 && nc >= 0 && nr < r && nc < c && grid[nr][nc] != '#' {
				row, col = nr, nc
				seen[[2]int{row, col}] = true
			}
		}
	}
	fmt.Println(len(seen), row+1, col+1, string(names[facing]))
}
