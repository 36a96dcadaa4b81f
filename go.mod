module github.com/galaxygym/galaxygym

go 1.26.8
