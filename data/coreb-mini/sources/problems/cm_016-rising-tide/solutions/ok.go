package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	in := bufio.NewReader(os.Stdin)
	var r, c int
	fmt.Fscan(in, &r, &c)
	grid := make([]string, r)
	for i := range grid {
		fmt.Fscan(in, &grid[i])
	}
	// flood hour by hour, keeping only the current frontier
	wet := make([][]bool, r)
	frontier := [][2]int{}
	land := 0
	for i := 0; i < r; i++ {
		wet[i] = make([]bool, c)
		for j := 0; j < c; j++ {
			switch grid[i][j] {
			case 'W':
				wet[i][j] = true
				frontier = append(frontier, [2]int{i, j})
			case '.':
				land++
			}
		}
	}
	hours, flooded := 0, 0
	for len(frontier) > 0 {
		next := [][2]int{}
		for _, cell := range frontier {
			for _, d := range [][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
				ni, nj := cell[0]+d[0], cell[1]+d[1]
				if ni < 0 || nj < 0 || ni >= r || nj >= c || grid[ni][nj] != '.' || wet[ni][nj] {
					continue
				}
				wet[ni][nj] = true
				next = append(next, [2]int{ni, nj})
			}
		}
		if len(next) > 0 {
			hours++
			flooded += len(next)
		}
		frontier = next
	}
	fmt.Println(hours, land-flooded)
}
