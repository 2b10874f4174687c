// CNoCurl has no API: it defines the 23 libcurl functions Foundation's URLSession calls
// (nocurl.c), so that the executables that link the MCP SDK do not load libcurl.
