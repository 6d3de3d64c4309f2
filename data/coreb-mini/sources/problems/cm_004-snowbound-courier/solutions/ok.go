package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	reader := bufio.NewReaderSize(os.Stdin, 1<<20)
	var rows, cols int
	fmt.Fscan(reader, &rows, &cols)
	grid := make([]string, rows)
	start, target := -1, -1
	for r := 0; r < rows; r++ {
		fmt.Fscan(reader, &grid[r])
		for c := 0; c < cols; c++ {
			switch grid[r][c] {
			case 'S':
				start = r*cols + c
			case 'T':
				target = r*cols + c
			}
		}
	}
	dist := make([]int, rows*cols)
	for i := range dist {
		dist[i] = -1
	}
	queue := []int{start}
	dist[start] = 0
	dr := []int{1, -1, 0, 0}
	dc := []int{0, 0, 1, -1}
	for head := 0; head < len(queue); head++ {
		cur := queue[head]
		if cur == target {
			break
		}
		r, c := cur/cols, cur%cols
		for k := 0; k < 4; k++ {
			nr, nc := r+dr[k], c+dc[k]
			if nr < 0 || nr >= rows || nc < 0 || nc >= cols || grid[nr][nc] == '#' {
				continue
			}
			next := nr*cols + nc
			if dist[next] >= 0 {
				continue
			}
			dist[next] = dist[cur] + 1
			queue = append(queue, next)
		}
	}
	fmt.Println(dist[target])
}
