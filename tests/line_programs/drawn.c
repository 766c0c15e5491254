/* A line-protocol program in C: answers /ready, passes every claim and throws the
   tile it just drew (the dealer's first throw: the last tile of its /initCard).
   cc -O2 -o drawn drawn.c && ./drawn   (stdin/stdout, as the official wrapper runs it)
   ./drawn HOST PORT                    (connects to a referee by TCP)            */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

int main(int argc, char **argv) {
    FILE *in = stdin, *out = stdout;
    if (argc == 3) { /* tcp: connect to HOST PORT and speak there */
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in addr = {0};
        addr.sin_family = AF_INET;
        addr.sin_port = htons((unsigned short)atoi(argv[2]));
        inet_pton(AF_INET, argv[1], &addr.sin_addr);
        if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) return 1;
        in = fdopen(fd, "r");
        out = fdopen(dup(fd), "w");
    }
    char line[4096];
    int drawn = 0;
    while (fgets(line, sizeof line, in)) {
        if (strncmp(line, "/ready", 6) == 0) fprintf(out, "/ready\n");
        else if (strncmp(line, "/initCard", 9) == 0) {
            char *tok = strtok(line + 9, " \r\n");
            while (tok) { drawn = atoi(tok); tok = strtok(NULL, " \r\n"); }
        }
        else if (strncmp(line, "/mo ", 4) == 0) drawn = atoi(line + 4);
        else if (strncmp(line, "/draw ", 6) == 0) drawn = atoi(line + 6); /* public form */
        else if (strncmp(line, "/ask throw", 10) == 0) fprintf(out, "/throw %d\n", drawn);
        else if (strncmp(line, "/ask", 4) == 0) fprintf(out, "/pass\n");
        else if (strncmp(line, "/exit", 5) == 0) break;
        fflush(out);
    }
    return 0;
}
