q = gets.to_i
q.times do
  w, h = gets.split.map(&:to_i)
  g = w.gcd(h)
  puts "#{g} #{(w / g) * (h / g)}"
end
