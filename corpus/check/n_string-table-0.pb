
€ €@(0* "€""
Z	`
2x2samples2count2main2main.go2a.out2b1d02foo2cpu2nanoseconds