module listprog

go 1.19
