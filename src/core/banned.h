/* Functions that are easy to misuse; use snprintf, sp_xstrdup and friends.
 * Included last by core/util.h, after <stdio.h> and <string.h> (their
 * fortified inline definitions use these names), as git's banned.h. */
#ifndef SP_BANNED_H
#define SP_BANNED_H
#define SP_BANNED(f) sorry_##f##_is_a_banned_function
#undef strcpy
#define strcpy(x, y) SP_BANNED(strcpy)
#undef strcat
#define strcat(x, y) SP_BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) SP_BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) SP_BANNED(strncat)
#undef sprintf
#define sprintf(...) SP_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) SP_BANNED(vsprintf)
#undef gets
#define gets(x) SP_BANNED(gets)
#undef strtok
#define strtok(x, y) SP_BANNED(strtok)
#endif
