s = gets.strip
t = gets.strip
prev = (0..t.size).to_a
s.each_char.with_index(1) do |sc, i|
  cur = [i]
  t.each_char.with_index(1) do |tc, j|
    cur << [prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (sc == tc ? 0 : 1)].min
  end
  prev = cur
end
puts prev[t.size]
