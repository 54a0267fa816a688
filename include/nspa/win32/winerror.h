/* NSPA Win32 layer: error codes (GetLastError values) used by the implemented APIs. */
#ifndef NSPA_WIN32_WINERROR_H
#define NSPA_WIN32_WINERROR_H

#define ERROR_SUCCESS                 0
#define NO_ERROR                      0
#define ERROR_INVALID_FUNCTION        1
#define ERROR_FILE_NOT_FOUND          2
#define ERROR_PATH_NOT_FOUND          3
#define ERROR_NOT_SAME_DEVICE         17
#define ERROR_NO_MORE_FILES           18
#define ERROR_DIR_NOT_EMPTY           145
#define ERROR_TOO_MANY_OPEN_FILES     4
#define ERROR_ACCESS_DENIED           5
#define ERROR_INVALID_HANDLE          6
#define ERROR_NOT_ENOUGH_MEMORY       8
#define ERROR_INVALID_DATA            13
#define ERROR_OUTOFMEMORY             14
#define ERROR_NOT_SUPPORTED           50
#define ERROR_INVALID_PARAMETER       87
#define ERROR_INSUFFICIENT_BUFFER     122
#define ERROR_INVALID_NAME            123
#define ERROR_CALL_NOT_IMPLEMENTED    120
#define ERROR_BAD_ARGUMENTS           160
#define ERROR_FILENAME_EXCED_RANGE    206
#define ERROR_ALREADY_EXISTS          183
#define ERROR_ENVVAR_NOT_FOUND        203
#define ERROR_TOO_MANY_POSTS          298
#define ERROR_NOT_OWNER               288
#define ERROR_TIMEOUT                 1460
#define ERROR_NOACCESS                998
#define ERROR_INVALID_FLAGS           1004
#define ERROR_NO_UNICODE_TRANSLATION  1113
#define ERROR_ABANDONED_WAIT_0        735
#define ERROR_SEM_TIMEOUT             121
#define ERROR_PRIVILEGE_NOT_HELD      1314
#define ERROR_INVALID_ADDRESS         487
#define ERROR_NOT_LOCKED              158
#define ERROR_POSSIBLE_DEADLOCK       1131
#define ERROR_THREAD_NOT_IN_PROCESS   566
#define ERROR_MORE_DATA               234
#define ERROR_NO_MORE_ITEMS           259
#define ERROR_INVALID_USER_BUFFER     1784
#define ERROR_ARITHMETIC_OVERFLOW     534
#define ERROR_GEN_FAILURE             31
#define ERROR_NO_SYSTEM_RESOURCES     1450
#define ERROR_BAD_LENGTH              24
#define ERROR_BAD_PATHNAME            161
#define ERROR_MR_MID_NOT_FOUND        317
#define ERROR_WAIT_1                  731
#define ERROR_WAIT_2                  732
#define ERROR_WAIT_3                  733
#define ERROR_WAIT_63                 734
#define ERROR_ABANDONED_WAIT_63       736
#define ERROR_USER_APC                737
#define ERROR_IO_PENDING              997
#define ERROR_SOME_NOT_MAPPED         1301
#ifndef WAIT_TIMEOUT
#define WAIT_TIMEOUT                  0x00000102u
#endif
#define ERROR_MESSAGE_SYNC_ONLY       1159
#define ERROR_INVALID_WINDOW_HANDLE   1400
#define ERROR_TLW_WITH_WSCHILD        1406
#define ERROR_CANNOT_FIND_WND_CLASS   1407
#define ERROR_WINDOW_OF_OTHER_THREAD  1408
#define ERROR_CLASS_ALREADY_EXISTS    1410
#define ERROR_CLASS_DOES_NOT_EXIST    1411
#define ERROR_CLASS_HAS_WINDOWS       1412
#define ERROR_INVALID_INDEX           1413
#define ERROR_INVALID_THREAD_ID       1444
#define ERROR_INVALID_MSGBOX_STYLE    1438
#define ERROR_NOT_ENOUGH_QUOTA        1816
#define ERROR_WORKING_SET_QUOTA       1453
#define ERROR_COMMITMENT_LIMIT        1455
#define ERROR_MOD_NOT_FOUND           126
#define ERROR_PROC_NOT_FOUND          127
#define ERROR_BAD_EXE_FORMAT          193
#define ERROR_DIRECTORY               267
#define ERROR_CANT_RESOLVE_FILENAME   1921
#define ERROR_BROKEN_PIPE             109
#define ERROR_NO_DATA                 232
#define ERROR_PIPE_NOT_CONNECTED      233
#define ERROR_FILE_INVALID            1006
#define ERROR_DUP_NAME                52
#define ERROR_IO_DEVICE               1117
#define ERROR_CONNECTION_INVALID      1229
#define ERROR_NETWORK_UNREACHABLE     1231
#define ERROR_HOST_UNREACHABLE        1232
#define ERROR_MAPPED_ALIGNMENT        1132
#define ERROR_NOT_READY               21
#define ERROR_INVALID_NETNAME         1214

#define S_OK            ((HRESULT)0)
#define S_FALSE         ((HRESULT)1)
#define E_FAIL          ((HRESULT)0x80004005)
#define E_INVALIDARG    ((HRESULT)0x80070057)
#define E_OUTOFMEMORY   ((HRESULT)0x8007000E)
#define SUCCEEDED(hr)   (((HRESULT)(hr)) >= 0)
#define FAILED(hr)      (((HRESULT)(hr)) < 0)
#define HRESULT_FROM_WIN32(x) ((HRESULT)(x) <= 0 ? ((HRESULT)(x)) : ((HRESULT)(((x) & 0x0000FFFF) | (7 << 16) | 0x80000000)))

#endif
